#!/usr/bin/env node
/**
 * Holds per second through one inventory process, then through two behind
 * the same client target (`ipv4:a,b`, what `dns:///<headless service>`
 * resolves to in a cluster), in one run: the round-robin channel every
 * service client uses is what spreads them. Both processes are started
 * here from the built dist on free ports, beside the stack `make up`
 * started (its PostgreSQL and Redis); the one-process row runs first and
 * again last, and its mean is the baseline. CPU per process is read from
 * /proc during each row, so the figures say where the cores went.
 *
 *   make bench-inventory      (BENCH_SECONDS, BENCH_CONCURRENCY)
 */
const { setTimeout, clearTimeout } = require('node:timers');
const { createServiceClient, gen, randomBase62 } = require('@partner-api/shared');
const { cpuSeconds, loadEnv, loopLoad, record, releaseHolds, startInventory } = require('./lib');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const CAPACITY = 1_000_000;
/** The whole run is well under this; past it something hangs, and the benchmark gives up. */
const BUDGET_MS = 3 * 60 * 1000;

const ctx = { organisationId: 909090, mode: 'live', keyId: 0, requestId: `bench_${randomBase62(12)}` };

async function onSaleEvent(client) {
  const slug = `bench-scaleout-${randomBase62(8).toLowerCase()}`;
  await client.upsertEvent({ fields: { slug, title: 'Bench scale-out', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await client.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(CAPACITY) } }, ctx);
  const type = await client.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '10.00', bookingFee: '1.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, typeId: type.id };
}

/** Holds through one client on `target` for SECONDS, with the CPU each inventory process spent meanwhile. */
async function holdRow(name, target, event, processes) {
  const client = createServiceClient(gen.inventory.InventoryService, target);
  try {
    const once = () =>
      client.holdStock({ holdId: randomBase62(16), eventIdOrSlug: event.slug, lines: [{ ticketTypeId: event.typeId, quantity: 1 }], ttlSeconds: 900 }, ctx);
    await loopLoad({ once, workers: 20, seconds: 1 }); // connect and warm up
    const before = processes.map((proc) => cpuSeconds(proc.pid));
    const result = await loopLoad({ once, workers: CONCURRENCY, seconds: SECONDS });
    const cores = processes.map((proc, i) => (cpuSeconds(proc.pid) - before[i]) / SECONDS);
    return { name, ...result, cores };
  } finally {
    client.close();
  }
}

async function main() {
  loadEnv();
  const guard = setTimeout(() => {
    console.error(`bench-inventory: over ${BUDGET_MS / 1000} s, giving up`);
    process.exit(1);
  }, BUDGET_MS);
  guard.unref();
  const processes = [];
  let event;
  try {
    processes.push(await startInventory(1), await startInventory(2));
    const [a, b] = processes;
    const admin = createServiceClient(gen.inventory.InventoryService, a.address);
    event = await onSaleEvent(admin);
    admin.close();

    const rows = [];
    rows.push(await holdRow('1 process (first)', `ipv4:${a.address}`, event, processes));
    rows.push(await holdRow('2 processes, one target', `ipv4:${a.address},${b.address}`, event, processes));
    rows.push(await holdRow('1 process (again)', `ipv4:${a.address}`, event, processes));
    const baseline = (rows[0].rps + rows[2].rps) / 2;

    const lines = [
      `| Row | Holds/s | p50 ms | p99 ms | Holds | Failed | Inventory 1 cores | Inventory 2 cores | vs 1 process (mean of first and again) |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        (row) =>
          `| ${row.name} | ${row.rps.toFixed(0)} | ${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.total} | ${row.bad} | ${row.cores[0].toFixed(2)} | ${row.cores[1].toFixed(2)} | ${(row.rps / baseline).toFixed(2)} |`,
      ),
    ];
    const markdown = `${CONCURRENCY} holds in flight from one client, ${SECONDS} s a row, one ticket per hold from one pool of ${CAPACITY.toLocaleString('en-AU')}.\n\n${lines.join('\n')}`;
    console.log(markdown);
    record('inventory-scaleout', markdown);
    if (rows.some((row) => row.bad > 0)) process.exitCode = 1;
  } finally {
    // Its sweepers beside the stack's: the run's 60,000 or so holds go back at once, not in 15 minutes.
    if (event) await releaseHolds({ organisationId: ctx.organisationId, slug: event.slug });
    await Promise.all(processes.map((proc) => proc.stop()));
    clearTimeout(guard);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
