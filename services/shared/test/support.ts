/** Helpers for integration tests against the real PostgreSQL and Kafka. */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Kafka, logLevel, type Consumer, type KafkaMessage } from 'kafkajs';
import { Pool } from 'pg';
import { randomBase62 } from '../src/events';

export const databaseUrl = (): string => {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run `make infra` (or export the URLs)');
  return url;
};

/** A real pool on one schema that counts the statements sent through it (to see writes batched). */
export function countingPool(schema: string): Pool & { statements: number } {
  const counted = Object.assign(new Pool({ connectionString: databaseUrl(), options: `-c search_path=${schema}`, max: 4 }), { statements: 0 });
  const query = counted.query.bind(counted) as (...args: unknown[]) => unknown;
  counted.query = ((...args: unknown[]) => {
    counted.statements += 1;
    return query(...args);
  }) as typeof counted.query;
  return counted;
}

export const kafkaBrokers = (): string[] => (process.env.KAFKA_BROKERS ?? '127.0.0.1:59092').split(',');

/**
 * Applies the up half of every SQL migration in `dir`, in name order, on
 * `pool` (whose search_path names the schema). The files are
 * node-pg-migrate's SQL form; node-pg-migrate itself is ESM, which Jest
 * cannot load.
 */
export async function applyMigrationFiles(pool: Pool, dir: string): Promise<void> {
  for (const file of fs.readdirSync(dir).sort()) {
    await pool.query(fs.readFileSync(path.join(dir, file), 'utf8').split('-- Down Migration')[0]!);
  }
}

/**
 * A throwaway schema holding the real outbox migrations, then either a
 * service's own migrations (`serviceMigrations`, a directory of its SQL
 * files) or a table to change. A suite on a schema of its own is apart from
 * any running stack, whose relays poll the services' own outboxes.
 */
export async function createScratchSchema(serviceMigrations?: string): Promise<{ schema: string; pool: Pool; drop: () => Promise<void> }> {
  const schema = `it_${randomBase62(8).toLowerCase()}`;
  const admin = new Pool({ connectionString: databaseUrl(), max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new Pool({ connectionString: databaseUrl(), max: 5, options: `-c search_path=${schema}` });
  await applyMigrationFiles(pool, path.join(__dirname, '..', 'migrations', 'outbox'));
  if (serviceMigrations) await applyMigrationFiles(pool, serviceMigrations);
  else await pool.query('CREATE TABLE things (id serial PRIMARY KEY, name text NOT NULL)');
  return {
    schema,
    pool,
    drop: async () => {
      await pool.end();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

export function testKafka(): Kafka {
  return new Kafka({ clientId: 'integration-test', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING });
}

/** A consumer that collects every message of a topic from the beginning. */
export async function collectTopic(kafka: Kafka, topic: string): Promise<{ messages: KafkaMessage[]; consumer: Consumer }> {
  const messages: KafkaMessage[] = [];
  const consumer = kafka.consumer({ groupId: `it-${randomBase62(10)}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void messages.push(message) });
  return { messages, consumer };
}

/**
 * A consumer that collects what a shared topic receives from now on: the
 * topic keeps every earlier run's events (hundreds of thousands on a
 * developer's machine after some benchmarks), and reading them all first
 * would outlast a test.
 */
export async function collectTopicFromNow(kafka: Kafka, topic: string): Promise<{ messages: KafkaMessage[]; consumer: Consumer }> {
  const admin = kafka.admin();
  await admin.connect();
  // Where the topic ends now (a new group's own `latest` is resolved later, after run()).
  const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
  const collected = await collectTopic(kafka, topic);
  for (const { partition, offset } of ends) collected.consumer.seek({ topic, partition, offset });
  return collected;
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An HTTP handler served on a free loopback port, for suites that drive one piece of a service over HTTP. */
export async function serveOnLoopback(handler: http.RequestListener): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
