import { createLogger } from './logger';
import { ServiceRuntime } from './runtime';

const runtime = () => new ServiceRuntime('runtime-test', { BIND_HOST: '127.0.0.1', OPS_PORT: 0, LOG_LEVEL: 'silent' }, createLogger('runtime-test', 'silent'));

/** A task whose runs finish when the test says so. */
function controlledTask() {
  const finishers: Array<() => void> = [];
  return {
    runs: () => finishers.length,
    finishLast: () => finishers[finishers.length - 1]!(),
    task: () => new Promise<void>((resolve) => finishers.push(resolve)),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('periodic tasks', () => {
  it('runSoon starts a run at once, and once more after the run in progress when asked during it', async () => {
    const service = runtime();
    const work = controlledTask();
    const { runSoon } = service.every('work', 60_000, work.task);
    runSoon();
    expect(work.runs()).toBe(1);
    runSoon();
    runSoon(); // asked twice during the run: one more run, not two
    expect(work.runs()).toBe(1);
    work.finishLast();
    await tick();
    expect(work.runs()).toBe(2);
    work.finishLast();
    await tick();
    expect(work.runs()).toBe(2);
    await service.stop();
  });

  it('shutdown waits for the run in progress and starts no other', async () => {
    const service = runtime();
    const work = controlledTask();
    const { runSoon } = service.every('work', 60_000, work.task);
    runSoon();
    let stopped = false;
    const stopping = service.stop().then(() => (stopped = true));
    await tick();
    expect(stopped).toBe(false);
    runSoon();
    work.finishLast();
    await stopping;
    expect(work.runs()).toBe(1);
  });
});
