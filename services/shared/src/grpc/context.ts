/**
 * The request context every internal call carries in gRPC metadata. Trace
 * context travels beside it through the OpenTelemetry grpc instrumentation.
 */
import { Metadata } from '@grpc/grpc-js';
import { ApiError } from '../errors';

export type KeyMode = 'live' | 'test';

export interface RequestContext {
  readonly organisationId: number;
  readonly mode: KeyMode;
  readonly keyId: number;
  readonly requestId: string;
}

const KEYS = {
  organisationId: 'x-organisation-id',
  mode: 'x-key-mode',
  keyId: 'x-key-id',
  requestId: 'x-request-id',
} as const;

export function contextToMetadata(ctx: RequestContext, into = new Metadata()): Metadata {
  into.set(KEYS.organisationId, String(ctx.organisationId));
  into.set(KEYS.mode, ctx.mode);
  into.set(KEYS.keyId, String(ctx.keyId));
  into.set(KEYS.requestId, ctx.requestId);
  return into;
}

function single(metadata: Metadata, key: string): string {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : '';
}

/** Reads the context; a call without a complete one is a bug in the caller. */
export function contextFromMetadata(metadata: Metadata): RequestContext {
  const organisationId = Number(single(metadata, KEYS.organisationId));
  const mode = single(metadata, KEYS.mode);
  const keyId = Number(single(metadata, KEYS.keyId));
  const requestId = single(metadata, KEYS.requestId);
  if (!Number.isSafeInteger(organisationId) || organisationId <= 0 || (mode !== 'live' && mode !== 'test')) {
    throw new ApiError('internal_error', 'Internal call without a request context.');
  }
  return { organisationId, mode, keyId, requestId };
}

/** Test-mode writes are validated in full but change nothing. */
export const isDryRun = (ctx: RequestContext): boolean => ctx.mode === 'test';
