/**
 * Puts a refund's tickets back on sale, once per refund id. One
 * transaction records the give-back as a live hold `refund:<id>` and undoes
 * that much of the sale (negative `pool_sales` rows): capacity − sold −
 * live holds is unchanged, so a counter rebuilt at any moment is still
 * right. Under the same row lock the hold's record is written into Redis
 * (without moving the counters), and then it is released like any hold,
 * which returns the tickets. A repeat finds the hold: still live, it is
 * written and released again (the scripts act once); released, nothing is
 * left to do. A process that dies in between leaves a live hold the
 * sweeper releases. Only capped pools of the organisation's event count.
 */
import { ApiError, inTransaction, type Pool, type RequestContext } from '@partner-api/shared';
import { CatalogRepository } from '../storage/catalog-repository';
import type { HoldBook } from '../storage/hold-book';
import type { HoldRepository } from '../storage/hold-repository';
import { COMP_TAKE_TTL_SECONDS } from './comp-stock';
import type { HoldDesk } from './hold-desk';

export interface RestockLine {
  poolId: string;
  quantity: number;
}

export class RefundRestocks {
  constructor(
    private readonly pool: Pool,
    private readonly desk: HoldDesk,
    private readonly holds: HoldRepository,
    private readonly book: HoldBook,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** False when there was nothing (left) to return. */
  async restock(ctx: RequestContext, refundId: string, eventId: string, lines: RestockLine[]): Promise<boolean> {
    if (!refundId) throw new ApiError('parameter_missing', 'refund_id is required.', 'refund_id');
    if (lines.some((line) => !Number.isInteger(line.quantity) || line.quantity < 1)) throw new ApiError('parameter_invalid', 'Each line needs a quantity of at least 1.', 'lines');
    this.book.assertUsable(eventId);
    const holdId = `refund:${refundId}`;
    // As short-lived as a comp take: if this process dies before the release, the sweeper soon gives the tickets back.
    const expiresAt = new Date(this.clock().getTime() + COMP_TAKE_TTL_SECONDS * 1000);
    const hold = await inTransaction(this.pool, async (client) => {
      const capped = await new CatalogRepository(client).cappedPoolIds(ctx.organisationId, eventId, lines.map((line) => line.poolId));
      const quantities = new Map<string, number>();
      for (const line of lines) {
        if (capped.includes(line.poolId)) quantities.set(line.poolId, (quantities.get(line.poolId) ?? 0) + line.quantity);
      }
      if (quantities.size === 0) return undefined;
      const pools = [...quantities].map(([pool_id, quantity]) => ({ pool_id, quantity }));
      await this.holds.recordGiveBack(client, { id: holdId, organisationId: ctx.organisationId, eventId, pools, expiresAt });
      const row = (await this.holds.lock(client, holdId))!;
      if (Number(row.organisation_id) !== ctx.organisationId || row.event_id !== eventId) throw new ApiError('parameter_invalid', 'This refund id is already used.', 'refund_id');
      // Written while the row is locked: a sweep cannot release the hold between this check and the write.
      if (row.state === 'held') {
        await this.book.reinstate(eventId, holdId, row.pools.map((line) => ({ poolId: String(line.pool_id), quantity: line.quantity })), expiresAt);
      }
      return row;
    });
    if (!hold || hold.state !== 'held') return false;
    await this.desk.release(holdId);
    return true;
  }
}
