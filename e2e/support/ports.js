/**
 * Ports for the processes that tests and benchmarks start beside the
 * stack, below the kernel's ephemeral range (`net.ipv4.ip_local_port_range`,
 * 32768–60999 by default) and clear of the fixed ports deploy/local uses
 * (Redis Cluster 17001 up and its bus 27001 up, the Kafka cluster 29092 up).
 * A port the OS gives for `listen(0)` is an ephemeral one: between taking
 * it and the process listening on it, any outgoing connection (a replica's
 * to Redis, Kafka or PostgreSQL while its gateway waits for orders to
 * start) could be given the same port as its local end, and the listen
 * failed with EADDRINUSE, twice in a row, in a CI run. Below that range no
 * connection lands on it. Plain JavaScript, so the benchmarks (run by node
 * without a build) use the same ports as the TypeScript suites.
 */
const { randomInt } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');

const TEST_PORTS = { from: 20_000, to: 27_000 };
const handedOut = new Set();

function canListen(port) {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function ephemeralRangeStart() {
  try {
    return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32_768; // not Linux: the IANA range starts at 49152, above this
  }
}

/** A loopback port nothing listens on and no outgoing connection can take (above); never the same one twice in a process. */
async function freePort() {
  if (ephemeralRangeStart() < TEST_PORTS.to) throw new Error(`the ephemeral port range starts below ${TEST_PORTS.to}: test ports would share it`);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = TEST_PORTS.from + randomInt(TEST_PORTS.to - TEST_PORTS.from);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${TEST_PORTS.from} and ${TEST_PORTS.to} in 100 tries`);
}

module.exports = { freePort };
