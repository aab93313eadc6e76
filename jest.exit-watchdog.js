/**
 * Jest globalTeardown (every project): a run whose tests are over but whose
 * process something still holds open (a client left connected, a timer a
 * library re-armed) fails within a minute, naming the kinds of handle still
 * open, rather than hanging CI until its time limit. Jest keeps its own
 * non-zero exit code when it has one.
 */
const { setTimeout } = require('node:timers');

const GRACE_MS = 60_000;

module.exports = async function armExitWatchdog() {
  if (globalThis.jestExitWatchdog) return;
  globalThis.jestExitWatchdog = setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap');
    process.stderr.write(`\nJest was still held open ${GRACE_MS / 1000} s after its tests ended, by: ${open.join(', ')}\n`);
    process.exit(1);
  }, GRACE_MS);
  // The watchdog itself never keeps the process alive.
  globalThis.jestExitWatchdog.unref();
};
