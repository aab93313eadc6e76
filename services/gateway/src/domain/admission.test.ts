import { Admission, type Permit, type RequestClass } from './admission';
import { ConcurrencyLimit } from './concurrency-limit';

function admission(limit: number, maxWaitMs = 0) {
  const clock = { now: 0 };
  const concurrency = new ConcurrencyLimit({ initial: limit, min: 1, max: limit, latencyCeilingMs: 1_000 }, () => clock.now);
  return { clock, admission: new Admission(concurrency, { criticalReserve: 0.5, maxWaitMs }, () => clock.now) };
}

/** Asks for a slot; records whether the request started, was shed, or is still waiting. */
function ask(subject: Admission, requestClass: RequestClass) {
  const outcome: { state: 'waiting' | 'admitted' | 'shed'; permit?: Permit; waitedMs?: number } = { state: 'waiting' };
  const withdraw = subject.request(requestClass, {
    admitted(permit, waitedMs) {
      Object.assign(outcome, { state: 'admitted', permit, waitedMs });
    },
    shed(waitedMs) {
      Object.assign(outcome, { state: 'shed', waitedMs });
    },
  });
  return Object.assign(outcome, { withdraw });
}

test('standard requests keep to what the critical reserve leaves; critical ones may use the whole limit', () => {
  const { admission: subject } = admission(10);
  const standard = Array.from({ length: 6 }, () => ask(subject, 'standard'));
  expect(standard.map((outcome) => outcome.state)).toEqual(['admitted', 'admitted', 'admitted', 'admitted', 'admitted', 'shed']);
  const critical = Array.from({ length: 6 }, () => ask(subject, 'critical'));
  expect(critical.map((outcome) => outcome.state)).toEqual(['admitted', 'admitted', 'admitted', 'admitted', 'admitted', 'shed']);
  expect(subject.inFlight).toBe(10);
  expect(subject.inFlightOf('critical')).toBe(5);
});

test('a slot given back goes to a waiting critical request before a waiting standard one', () => {
  const { admission: subject } = admission(2, 50);
  const running = [ask(subject, 'critical'), ask(subject, 'critical')];
  const standard = ask(subject, 'standard');
  const critical = ask(subject, 'critical');
  expect([standard.state, critical.state]).toEqual(['waiting', 'waiting']);
  running[0]!.permit!.release();
  expect([standard.state, critical.state]).toEqual(['waiting', 'admitted']);
  // A permit is given back once, however often release is called.
  running[0]!.permit!.release();
  expect(subject.inFlight).toBe(2);
});

test('a waiting request is shed after the longest wait, and one whose client left is neither started nor shed', async () => {
  const { clock, admission: subject } = admission(2, 5);
  const running = [ask(subject, 'critical'), ask(subject, 'critical')];
  const left = ask(subject, 'critical');
  const waiting = ask(subject, 'critical');
  left.withdraw();
  clock.now = 10;
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(waiting.state).toBe('shed');
  expect(waiting.waitedMs).toBe(10);
  expect(left.state).toBe('waiting');
  running[0]!.permit!.release();
  expect(subject.inFlight).toBe(1);
  expect(left.state).toBe('waiting');
});

test('no more may wait than the limit', () => {
  const { admission: subject } = admission(2, 50);
  for (let started = 0; started < 2; started += 1) ask(subject, 'critical');
  const waiting = [ask(subject, 'critical'), ask(subject, 'critical'), ask(subject, 'critical')];
  expect(waiting.map((outcome) => outcome.state)).toEqual(['waiting', 'waiting', 'shed']);
});

test('without a wait, a request over its share is shed at once', () => {
  const { admission: subject } = admission(1);
  ask(subject, 'critical');
  expect(ask(subject, 'critical')).toMatchObject({ state: 'shed', waitedMs: 0 });
});
