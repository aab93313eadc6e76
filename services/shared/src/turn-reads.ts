/**
 * Identical reads asked for in one turn of the event loop, made once.
 *
 * Under an on-sale a process runs the same read for many requests at once:
 * the holds of one CallBatch all read their event's catalog version and
 * the same pools' counters. Each read alone is a command built, sent,
 * answered and parsed. Here the first caller of a turn starts the read and
 * every later caller of the same turn with the same key shares its answer.
 *
 * Only callers of the same turn share: the services' auto-pipelining
 * ioredis clients write the read at the end of the turn, after every caller
 * sharing it had asked, so no caller gets an answer older than its own
 * request, exactly as if it had read alone. A later turn reads again, even
 * while the earlier read is still in flight.
 */
export function sharedReadsPerTurn<K, V>(read: (key: K) => Promise<V>): (key: K) => Promise<V> {
  let turn: Map<K, Promise<V>> | undefined;
  return (key) => {
    if (!turn) {
      turn = new Map();
      // Queued before the read's own write (its client's end-of-turn flush), so the sharing stops before the read leaves.
      setImmediate(() => {
        turn = undefined;
      });
    }
    let pending = turn.get(key);
    if (!pending) {
      pending = read(key);
      turn.set(key, pending);
    }
    return pending;
  };
}
