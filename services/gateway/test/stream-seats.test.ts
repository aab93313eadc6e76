/**
 * StreamSeats against the real Redis (D370): every gateway process counts
 * an organisation's open event streams in the same place, a seat given
 * back is free at once, and the seats of a process that died lapse with
 * their lease unless renewed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { redisFromEnv, type RedisClient } from '@partner-api/shared';
import { StreamSeats } from '../src/storage/stream-seats';

let redis: RedisClient;
let otherRedis: RedisClient;

beforeAll(() => {
  redis = redisFromEnv();
  otherRedis = redisFromEnv();
});

afterAll(async () => {
  await Promise.all([redis.quit(), otherRedis.quit()]);
});

/** An organisation id no other test uses. */
const freshOrganisation = () => 2_000_000_000 + Math.floor(Math.random() * 100_000_000);

describe('StreamSeats', () => {
  it('shares one organisation’s seats between two gateway processes, and a seat given back is free at once', async () => {
    // Two stores on two connections, as two gateway pods have.
    const first = new StreamSeats(redis);
    const second = new StreamSeats(otherRedis);
    const organisation = freshOrganisation();

    const taken = [await first.take(organisation, 3), await second.take(organisation, 3), await first.take(organisation, 3)];
    expect(taken.every((seat) => seat !== undefined)).toBe(true);
    expect(await second.take(organisation, 3)).toBeUndefined();
    expect(await first.take(freshOrganisation(), 3)).toBeDefined();

    await taken[0]!.release();
    expect(await second.take(organisation, 3)).toBeDefined();
    expect(await first.take(organisation, 3)).toBeUndefined();
  });

  it('frees the seats of a process that stopped renewing them once their lease runs out; a renewed seat stays held', async () => {
    const seats = new StreamSeats(redis, 1_000);
    const organisation = freshOrganisation();
    const renewed = await seats.take(organisation, 2);
    const abandoned = await seats.take(organisation, 2);
    expect(renewed && abandoned).toBeDefined();
    expect(await seats.take(organisation, 2)).toBeUndefined();

    await sleep(500);
    await renewed!.renew();
    // Past the abandoned seat's lease (1,000 ms from the take), well inside the renewed one's (1,000 ms from the renewal).
    await sleep(700);
    // The abandoned seat's lease ran out; the renewed one's did not.
    expect(await seats.take(organisation, 2)).toBeDefined();
    expect(await seats.take(organisation, 2)).toBeUndefined();
  });
});
