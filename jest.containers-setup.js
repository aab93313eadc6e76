/**
 * Jest globalSetup of the integration suites. With TEST_INFRA=containers,
 * PostgreSQL, Redis and Kafka come from testcontainers (podman's
 * Docker-compatible API, images built locally by deploy/containers/images.sh)
 * instead of the local servers, and their URLs replace DATABASE_URL,
 * REDIS_URL and KAFKA_BROKERS for every test file. Otherwise it does nothing.
 */
const { execFileSync } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');

const SCRIPTS = path.join(__dirname, 'deploy', 'containers');

/** KEY=value lines printed by our scripts (their progress goes to stderr). */
function runScript(name, ...args) {
  const out = execFileSync(path.join(SCRIPTS, name), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return Object.fromEntries(out.split('\n').filter((line) => line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

/** A port free on loopback now: Kafka must know its host port before it starts. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

module.exports = async function startTestContainers() {
  if (process.env.TEST_INFRA !== 'containers') return;
  const started = Date.now();
  const stages = [];
  const stage = (name) => stages.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const images = runScript('images.sh');
  stage('images');
  const service = runScript('service.sh', 'start');
  stage('engine');
  // Jest runs no globalTeardown when the setup fails: undo a half-done start here.
  const state = (globalThis.testContainers = { containers: [] });
  try {
    await startContainers(images, service, state, stage);
  } catch (error) {
    await require('./jest.containers-teardown.js')();
    throw error;
  }
  console.log(`\ntest containers ready (${stages.join(', ')}): ${process.env.DATABASE_URL}, ${process.env.REDIS_URL}, ${process.env.KAFKA_BROKERS}`);
};

async function startContainers(images, service, state, stage) {
  // testcontainers reads these when first loaded; Ryuk (the reaper container) is
  // not built here: the teardown removes what this setup started.
  process.env.DOCKER_HOST = service.DOCKER_HOST;
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  process.env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1';
  const { GenericContainer, Wait } = require('testcontainers');

  /** Ports published on 127.0.0.1 only (podman would otherwise listen on every interface). */
  class LoopbackContainer extends GenericContainer {
    constructor(image) {
      super(image);
      const [key, value] = service.LABEL.split('=');
      this.withLabels({ [key]: value });
    }

    withLoopbackPort(container, host = 0) {
      this.withExposedPorts(container);
      this.hostConfig.PortBindings[container] = [{ HostIp: '127.0.0.1', HostPort: String(host) }];
      return this;
    }
  }

  const kafkaPort = await freePort();
  const starting = [
    new LoopbackContainer(images.POSTGRES_IMAGE)
      .withLoopbackPort(5432)
      .withWaitStrategy(Wait.forLogMessage('database system is ready to accept connections'))
      .start(),
    new LoopbackContainer(images.REDIS_IMAGE)
      .withLoopbackPort(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start(),
    new LoopbackContainer(images.KAFKA_IMAGE)
      .withLoopbackPort(9092, kafkaPort)
      .withEnvironment({ KAFKA_ADVERTISED: `127.0.0.1:${kafkaPort}` })
      .withWaitStrategy(Wait.forLogMessage('Kafka Server started'))
      .withStartupTimeout(120_000)
      .start(),
  ];
  // Every container that did start is recorded for the teardown, even when another failed.
  const results = await Promise.allSettled(starting);
  state.containers = results.filter((result) => result.status === 'fulfilled').map((result) => result.value);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  const [postgres, redis, kafka] = state.containers;
  stage('containers');

  process.env.DATABASE_URL = `postgres://partner:partner@127.0.0.1:${postgres.getMappedPort(5432)}/partner_api`;
  process.env.REDIS_URL = `redis://127.0.0.1:${redis.getMappedPort(6379)}`;
  process.env.KAFKA_BROKERS = `127.0.0.1:${kafka.getMappedPort(9092)}`;
  process.env.KAFKA_TOPIC ||= 'partner.events.v1';

  // The schemas every service migrates, and the events topic (auto-creation is off), as `make migrate` and infra.sh do.
  execFileSync(process.execPath, [path.join(__dirname, 'services', 'cli', 'dist', 'main.js'), 'migrate'], { stdio: ['ignore', 'ignore', 'inherit'] });
  stage('migrations');
  const { Kafka, logLevel } = require('kafkajs');
  const admin = new Kafka({ clientId: 'test-setup', brokers: [process.env.KAFKA_BROKERS], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: process.env.KAFKA_TOPIC, numPartitions: 6, replicationFactor: 1 }], waitForLeaders: true });
  await admin.disconnect();
  stage('topic');
}
