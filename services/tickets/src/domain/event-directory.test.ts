import { ApiError, type RequestContext } from '@partner-api/shared';
import { EventDirectory, type InventoryClient } from './event-directory';

const ctx = (organisationId: number): RequestContext => ({ organisationId, mode: 'live', keyId: 1, requestId: 'req_test' });

/** Inventory with one event (id 42, slug "gig") of organisation 3. */
function fakeInventory() {
  const calls: string[] = [];
  const inventory: Pick<InventoryClient, 'getEvent'> = {
    getEvent: async (request, context) => {
      calls.push(`${context.organisationId}|${request.idOrSlug}`);
      if (context.organisationId === 3 && (request.idOrSlug === '42' || request.idOrSlug === 'gig')) return { id: 42n } as never;
      throw new ApiError('resource_missing', 'No such event.', 'id');
    },
  };
  return { inventory, calls };
}

describe('EventDirectory', () => {
  it('resolves an id or slug through inventory and reuses the answer within the window', async () => {
    const { inventory, calls } = fakeInventory();
    let now = 1_000;
    const directory = new EventDirectory(inventory, 30_000, () => now);
    expect(await directory.eventId(ctx(3), 'gig')).toBe(42n);
    expect(await directory.eventId(ctx(3), 'gig')).toBe(42n);
    expect(await directory.eventId(ctx(3), '42')).toBe(42n);
    expect(calls).toEqual(['3|gig', '3|42']);
    now += 30_000;
    expect(await directory.eventId(ctx(3), 'gig')).toBe(42n);
    expect(calls).toEqual(['3|gig', '3|42', '3|gig']);
  });

  it("never keeps a miss, and never answers for another organisation's event", async () => {
    const { inventory, calls } = fakeInventory();
    const directory = new EventDirectory(inventory, 30_000);
    await directory.eventId(ctx(3), 'gig');
    await expect(directory.eventId(ctx(4), 'gig')).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(directory.eventId(ctx(4), 'gig')).rejects.toMatchObject({ code: 'resource_missing' });
    expect(calls).toEqual(['3|gig', '4|gig', '4|gig']);
  });

  it('asks every time with a window of 0', async () => {
    const { inventory, calls } = fakeInventory();
    const directory = new EventDirectory(inventory, 0);
    await directory.eventId(ctx(3), 'gig');
    await directory.eventId(ctx(3), 'gig');
    expect(calls).toHaveLength(2);
  });
});
