/** One event of the signed-in organisation, for the pages about a single event (the door, the waiting room). */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, type gen, type InventoryClient, type RequestContext } from '@partner-api/shared';
import { DashboardError } from '../domain/dashboard-error';

export type OrganisationEvent = MessageShape<typeof gen.inventory.EventSchema>;

const EVENT_ID = /^[1-9][0-9]{0,17}$/;

/** The event with this id in the organisation of `ctx`; a 404 page for an id that is malformed or not theirs. */
export async function organisationEvent(inventory: InventoryClient, ctx: RequestContext, id: string): Promise<OrganisationEvent> {
  const missing = () => new DashboardError(404, 'There is no such event in your organisation.');
  if (!EVENT_ID.test(id)) throw missing();
  return inventory.getEvent({ idOrSlug: id }, ctx).catch((error: unknown) => {
    throw error instanceof ApiError && error.code === 'resource_missing' ? missing() : error;
  });
}
