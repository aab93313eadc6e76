/**
 * Internal messages carry resources in the API's field names; this writes one
 * as the JSON the partner sees: proto field names, unset optional fields as
 * null, maps as objects. One generic walk instead of a mapper per resource.
 */
import type { DescField, DescMessage, Message } from '@bufbuild/protobuf';

export type ApiJson = null | boolean | number | string | ApiJson[] | { [key: string]: ApiJson };

function scalar(value: unknown): ApiJson {
  if (typeof value === 'bigint') return Number(value);
  return value as ApiJson;
}

function fieldValue(field: DescField, value: unknown): ApiJson {
  if (value === undefined) return null;
  switch (field.fieldKind) {
    case 'message':
      return toApiJson(field.message, value as Message);
    case 'list':
      return (value as unknown[]).map((item) =>
        field.listKind === 'message' ? toApiJson(field.message, item as Message) : scalar(item),
      );
    case 'map': {
      const out: Record<string, ApiJson> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        out[key] = field.mapKind === 'message' ? toApiJson(field.message, item as Message) : scalar(item);
      }
      return out;
    }
    default:
      return scalar(value);
  }
}

export function toApiJson(schema: DescMessage, message: Message): { [key: string]: ApiJson } {
  const out: Record<string, ApiJson> = {};
  const record = message as unknown as Record<string, unknown>;
  for (const field of schema.fields) {
    out[field.name] = fieldValue(field, record[field.localName]);
  }
  return out;
}
