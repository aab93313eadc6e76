/**
 * Four suites: unit (no servers), integration (real PostgreSQL, Redis,
 * Kafka from .data/infra.env or the env URLs, or from testcontainers with
 * TEST_INFRA=containers), kafka-cluster (integration against the local
 * 3-node Kafka cluster, `make test-kafka-cluster`), redis-cluster (suites
 * that kill a shard of the local Redis Cluster, `make test-redis-cluster`)
 * and e2e (the running system, driven over HTTP from outside).
 */
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
// Tests run from source: workspace packages resolve to their src, not dist.
const moduleNameMapper = {
  '^@partner-api/shared$': '<rootDir>/services/shared/src/index.ts',
  '^@partner-api/(gateway|inventory|orders|tickets|webhooks|client|dashboard)$': '<rootDir>/services/$1/src/index.ts',
};
// A run held open after its tests fails within a minute instead of hanging (jest.exit-watchdog.js).
// .data holds the servers' files (a test node's container images among them), never code to test or import.
const common = { transform, moduleNameMapper, modulePathIgnorePatterns: ['<rootDir>/.data/'], testEnvironment: 'node', globalTeardown: '<rootDir>/jest.exit-watchdog.js' };

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/services/*/src/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/services/*/test/**/*.test.ts'],
      // Suites that need the 3-node Kafka cluster or a Redis Cluster run in their own projects.
      testPathIgnorePatterns: ['/node_modules/', '\\.cluster\\.test\\.ts$', '\\.redis-cluster\\.test\\.ts$'],
      setupFiles: ['<rootDir>/jest.infra-env.js'],
      // TEST_INFRA=containers: servers from testcontainers instead of the local ones.
      globalSetup: '<rootDir>/jest.containers-setup.js',
      globalTeardown: '<rootDir>/jest.containers-teardown.js',
    },
    {
      ...common,
      displayName: 'kafka-cluster',
      testMatch: ['<rootDir>/services/*/test/**/*.cluster.test.ts'],
      setupFiles: ['<rootDir>/jest.infra-env.js'],
    },
    {
      ...common,
      displayName: 'redis-cluster',
      testMatch: ['<rootDir>/services/*/test/**/*.redis-cluster.test.ts'],
      setupFiles: ['<rootDir>/jest.infra-env.js'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/e2e/**/*.test.ts'],
      setupFiles: ['<rootDir>/jest.infra-env.js'],
      // The OpenAPI validator's reference parser ships only as ESM: compile it for Jest.
      transform: { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
      transformIgnorePatterns: ['/node_modules/(?!@apidevtools/json-schema-ref-parser/)'],
    },
  ],
};
