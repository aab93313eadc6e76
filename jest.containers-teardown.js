/** Jest globalTeardown: stops what jest.containers-setup.js started (no Ryuk to do it), and arms the exit watchdog. */
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const armExitWatchdog = require('./jest.exit-watchdog');

module.exports = async function stopTestContainers() {
  await armExitWatchdog();
  const state = globalThis.testContainers;
  if (!state) return;
  globalThis.testContainers = undefined;
  await Promise.all(state.containers.map((container) => container.stop({ timeout: 5_000 })));
  // The engine is this checkout's own (one run at a time): stopped even when an
  // interrupted run had left it going and this run reused it.
  execFileSync(path.join(__dirname, 'deploy', 'containers', 'service.sh'), ['stop'], { stdio: 'inherit' });
};
