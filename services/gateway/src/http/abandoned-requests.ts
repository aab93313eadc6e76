/**
 * Requests whose client went away before their answer was written, by what
 * became of what they took (D444): `released` (given back at once),
 * `release_failed` (the release did not go through: the hold lapses as any
 * other), `kept` (an Idempotency-Key was sent, so the retry finds it).
 */
import { Counter, type Registry } from '@partner-api/shared';

export type AbandonedOutcome = 'released' | 'release_failed' | 'kept';

export class AbandonedRequests {
  private readonly counter: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.counter = new Counter({
      name: 'gateway_abandoned_requests_total',
      help: 'Checkout sessions whose buyer never received the answer, by what became of their hold',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  count(outcome: AbandonedOutcome): void {
    this.counter.inc({ outcome });
  }
}
