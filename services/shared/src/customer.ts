/**
 * A customer as the API's JSON and the orders tables spell it (snake_case,
 * null for a field not given) and as the protos carry it (camelCase,
 * absent): the one mapping between the two.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CustomerSchema } from './gen/partnerapi/common/v1/common_pb';

export interface CustomerFields {
  email?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
}

export type CustomerMessage = MessageInitShape<typeof CustomerSchema>;

export function customerMessage(fields: CustomerFields): CustomerMessage {
  return {
    email: fields.email ?? undefined,
    firstName: fields.first_name ?? undefined,
    lastName: fields.last_name ?? undefined,
    phone: fields.phone ?? undefined,
  };
}

export function customerFields(message: CustomerMessage): Required<CustomerFields> {
  return {
    email: message.email ?? null,
    first_name: message.firstName ?? null,
    last_name: message.lastName ?? null,
    phone: message.phone ?? null,
  };
}
