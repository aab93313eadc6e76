/**
 * A client address of this run's own, sent as X-Forwarded-For (the local
 * stack's dashboard and hosted pages trust 127.0.0.1 as their proxy,
 * deploy/local/services.sh; its gateway trusts none, D381). The dashboard's sign-ins and the hosted
 * pages' waiting-list joins are counted per address in Redis for minutes
 * (D366, D371): from 127.0.0.1, runs in a row would share one allowance.
 */
import { randomInt } from 'node:crypto';

export function runClientAddress(): string {
  return `198.18.${randomInt(256)}.${randomInt(1, 255)}`;
}
