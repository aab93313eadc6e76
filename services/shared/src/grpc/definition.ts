/**
 * grpc-js does not know protobuf-es messages: this turns a generated
 * DescService into a grpc-js service definition, so servers and clients of
 * every service share one (de)serialisation path.
 */
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { fromBinary, toBinary, type DescMessage, type DescService, type MessageShape } from '@bufbuild/protobuf';
import type { GenServiceMethods } from '@bufbuild/protobuf/codegenv2';

export type UnaryMethods = GenServiceMethods;

export function grpcServiceDefinition(service: DescService): ServiceDefinition {
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    if (method.methodKind !== 'unary') {
      throw new Error(`${service.typeName}.${method.name}: only unary methods are supported`);
    }
    // A view of the encoded bytes, not a copy of them.
    const serialize = (schema: DescMessage) => (message: MessageShape<DescMessage>) => {
      const bytes = toBinary(schema, message);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    };
    const deserialize = (schema: DescMessage) => (bytes: Buffer) => fromBinary(schema, bytes);
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      originalName: method.name,
      requestStream: false,
      responseStream: false,
      requestSerialize: serialize(method.input),
      requestDeserialize: deserialize(method.input),
      responseSerialize: serialize(method.output),
      responseDeserialize: deserialize(method.output),
    } as MethodDefinition<unknown, unknown>;
  }
  return definition;
}
