/**
 * Loaded with `node --require` before anything else so auto-instrumentation
 * can patch http, express, grpc, pg, ioredis and kafkajs as they load.
 * Spans are exported over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set;
 * context still propagates (traceparent through gRPC and Kafka) without it.
 */
import { startTelemetry } from './sdk';

startTelemetry();
