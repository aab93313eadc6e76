import { Lifecycle } from './lifecycle';
import { createLogger } from './logger';

const logger = createLogger('lifecycle-test', 'silent');

describe('the process lifecycle', () => {
  it('is not ready until started, and not ready once stopping', async () => {
    const lifecycle = new Lifecycle(logger);
    expect((await lifecycle.readiness()).ready).toBe(false);
    lifecycle.markStarted();
    expect((await lifecycle.readiness()).ready).toBe(true);
    const stopping = lifecycle.shutdown('test');
    expect((await lifecycle.readiness()).ready).toBe(false);
    await stopping;
  });

  it('reports which dependency fails readiness', async () => {
    const lifecycle = new Lifecycle(logger);
    lifecycle.addReadinessCheck('postgres', async () => undefined);
    lifecycle.addReadinessCheck('redis', async () => {
      throw new Error('down');
    });
    lifecycle.markStarted();
    expect(await lifecycle.readiness()).toEqual({ ready: false, failing: ['redis'] });
  });

  it('closes in reverse order of registration, the `last` closer at the very end', async () => {
    const lifecycle = new Lifecycle(logger);
    const closed: string[] = [];
    lifecycle.onShutdown('pool', () => void closed.push('pool'));
    lifecycle.onShutdown('ops', () => void closed.push('ops'), { last: true });
    lifecycle.onShutdown('server', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      closed.push('server');
    });
    await lifecycle.shutdown('test');
    expect(closed).toEqual(['server', 'pool', 'ops']);
  });

  it('keeps closing the rest when one closer fails, and shuts down once', async () => {
    const lifecycle = new Lifecycle(logger);
    let poolClosed = 0;
    lifecycle.onShutdown('pool', () => void (poolClosed += 1));
    lifecycle.onShutdown('broken', () => {
      throw new Error('boom');
    });
    await Promise.all([lifecycle.shutdown('a'), lifecycle.shutdown('b')]);
    expect(poolClosed).toBe(1);
  });
});
