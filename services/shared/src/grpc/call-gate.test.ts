import { CallGate, CallShed } from './call-gate';

const never = () => new Promise<never>(() => {});
const later = () => {
  let finish!: () => void;
  const done = new Promise<string>((resolve) => {
    finish = () => resolve('done');
  });
  return { done, finish };
};

test('a call whose deadline has passed is not started', async () => {
  const gate = new CallGate({ maxInFlight: 10, maxQueueMs: 100 });
  let started = false;
  await expect(
    gate.run(Date.now() - 1, async () => {
      started = true;
    }),
  ).rejects.toMatchObject({ reason: 'deadline' });
  expect(started).toBe(false);
});

test('over the bound a call waits for a slot, then runs', async () => {
  const gate = new CallGate({ maxInFlight: 1, maxQueueMs: 1_000 });
  const first = later();
  const running = gate.run(Infinity, () => first.done);
  const queued = gate.run(Infinity, async () => 'second');
  expect(gate.running).toBe(1);
  first.finish();
  await expect(running).resolves.toBe('done');
  await expect(queued).resolves.toBe('second');
  expect(gate.running).toBe(0);
});

test('a call that cannot start within the queue wait is answered rate_limited at once', async () => {
  const gate = new CallGate({ maxInFlight: 1, maxQueueMs: 20 });
  void gate.run(Infinity, never);
  const started = Date.now();
  const refused = await gate.run(Infinity, async () => 'never').catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(CallShed);
  expect(refused).toMatchObject({ reason: 'busy', code: 'rate_limited', httpStatus: 429 });
  expect(Date.now() - started).toBeLessThan(500);
});

test('a waiting call whose deadline comes first is refused as late, not busy', async () => {
  const gate = new CallGate({ maxInFlight: 1, maxQueueMs: 1_000 });
  void gate.run(Infinity, never);
  await expect(gate.run(Date.now() + 20, async () => 'never')).rejects.toMatchObject({ reason: 'deadline' });
});

test('with no queue wait, a call over the bound is refused at once', async () => {
  const gate = new CallGate({ maxInFlight: 1, maxQueueMs: 0 });
  void gate.run(Infinity, never);
  await expect(gate.run(Infinity, async () => 'never')).rejects.toMatchObject({ reason: 'busy' });
});

test('a failing call frees its slot', async () => {
  const gate = new CallGate({ maxInFlight: 1, maxQueueMs: 0 });
  await expect(gate.run(Infinity, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  await expect(gate.run(Infinity, async () => 'next')).resolves.toBe('next');
});
