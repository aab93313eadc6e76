/**
 * Jest globalTeardown (every project): a run whose tests are over but whose
 * process something still holds open (a client left connected, a timer a
 * library re-armed) fails within a minute, naming what is still open, rather
 * than hanging CI until its time limit. Jest keeps its own non-zero exit
 * code when it has one.
 */
const { setTimeout } = require('node:timers');

const GRACE_MS = 60_000;

/** A socket by its two ends (or the host it is still connecting to): enough to tell whose client it is. */
function describeHandle(handle) {
  if (typeof handle?.remotePort === 'number') return `socket ${handle.localAddress}:${handle.localPort} -> ${handle.remoteAddress}:${handle.remotePort}`;
  if (handle?.connecting) return `socket still connecting (to ${handle._host ?? 'an address not recorded'})`;
  if (typeof handle?.address === 'function' && handle.listening) return `server on ${JSON.stringify(handle.address())}`;
  return handle?.constructor?.name ?? typeof handle;
}

module.exports = async function armExitWatchdog() {
  if (globalThis.jestExitWatchdog) return;
  globalThis.jestExitWatchdog = setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
    // Node's own list of handles is undocumented; it only adds detail here, so its absence costs nothing.
    const detail = (process._getActiveHandles?.() ?? []).filter((handle) => !handle.isTTY).map(describeHandle);
    process.stderr.write(`\nJest was still held open ${GRACE_MS / 1000} s after its tests ended, by: ${open.join(', ')}\n${detail.map((line) => `  ${line}\n`).join('')}`);
    process.exit(1);
  }, GRACE_MS);
  // The watchdog itself never keeps the process alive.
  globalThis.jestExitWatchdog.unref();
};
