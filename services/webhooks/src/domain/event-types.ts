/** Which event types an endpoint subscribes to: types from the catalogue, or `*` alone for all (future types too). */
import { ApiError, EVENT_TYPES } from '@partner-api/shared';

export const ALL_EVENTS = '*';

const KNOWN = new Set<string>(EVENT_TYPES);

/** Checks and tidies a subscription list: duplicates dropped, order kept. */
export function normaliseEventTypes(types: readonly string[]): string[] {
  if (types.length === 0) throw new ApiError('parameter_invalid', 'event_types must list at least one event type, or "*" for all.', 'event_types');
  const unique = [...new Set(types)];
  if (unique.includes(ALL_EVENTS)) {
    if (unique.length > 1) throw new ApiError('parameter_invalid', 'event_types: "*" subscribes to every type and cannot be combined with others.', 'event_types');
    return unique;
  }
  const index = types.findIndex((type) => !KNOWN.has(type));
  if (index >= 0) throw new ApiError('parameter_invalid', `Unknown event type "${types[index]}".`, `event_types[${index}]`);
  return unique;
}

export const subscribes = (eventTypes: readonly string[], type: string): boolean => eventTypes.includes(ALL_EVENTS) || eventTypes.includes(type);
