// `npm run bench` (short smoke mode, about a minute) and `npm run bench -- --full` (a million rows,
// several rates, saturation, the PostgreSQL-backed Temporal server). Starts its own environment,
// seeds, measures, writes the report, and tears everything down.
//
// Options:
//   --full               full mode (refuses when the 1-minute load average is above 1.5 unless --force)
//   --only=a,b           scenarios: baseline,sandbox,create,payout-submit,codec,create3ds,webhook,endpoints,get,payment-list,payouts,events,refunds,payout-hanging,explain,postgres
//   --label=name         also keep the raw results as bench/results/<name>.json
//   --reuse-db           keep a seeded database of the same size from an earlier --keep-db run
//   --keep-db            do not drop the bench database at the end
//   --no-postgres        skip the PostgreSQL-backed Temporal server (full mode runs it by default)
//   --settle-ms=N        sandbox settlement delay (default 0: creates answer SUCCEEDED at once)
//   --workers=N          payments worker processes on the dev server (default 1)
//   --postgres-workers=N payments worker processes on the PostgreSQL-backed server (default 2: with it,
//                        the production topology of docker-compose.yml as far as Temporal sees it)
//   --hold               start the environment and keep it up for manual probing (Ctrl-C stops it)
//   --temporal-store=file  the dev server keeps its SQLite store in a file (default: in memory)
//   --payout-rate=N, --payout-seconds=N   pace of the payout list steps
//   --create-rates=a,b, --create-seconds=N  rates and step length of creates and baseline (a)
//   --hot-refund-seconds=N  the refunds on one hot Payment at 10/s, then at saturation (8 connections), N s each
//   --refund-rates=a,b, --refund-seconds=N  rates and step length of both refund scenarios (no saturation step)
//   --saturate           creates and baseline (a) also run a saturation step (32 connections) in short mode
//   --dev-server-config=k=v[,k=v]  dynamic config of the SQLite dev server on top of src/temporal/dev-server.ts's
//   --no-webhooks        the merchants get no webhook URL (how much of a create's cost is delivery)
//   --buffer-pool-gib=N  InnoDB buffer pool during the run (default 4; 0 leaves the server as it is)
//   --seed-payments=N, --seed-payouts=N  seed fewer rows (same merchants) for a scenario that needs no more
//   --codec-rate=N, --codec-seconds=N, --codec-repetitions=N  the codec cost steps (creates with and
//                        without the payload codec, alternating; a second API and worker run without it)
// Load comes from vegeta (built with Go on first use into ~/.cache/payments-service; bench/lib/load.ts).
// Environment: BENCH_PORT_OFFSET=N moves every port of the bench by N (two checkouts side by side);
// BENCH_DATABASE_URL names the database (its name must start with payments_bench);
// BENCH_CPU_PROFILE_DIR=dir writes a V8 CPU profile of every bench process there on stop;
// BENCH_TRACE_DIR=dir keeps every step's per-request results (read them with `vegeta encode`);
// BENCH_LIST_PAYMENTS=N gives the payment list steps' merchant N payments (default: the mode's payments);
// BENCH_EVENTS=N seeds N events for the events scenario instead of the mode's count, and
// BENCH_EVENTS_SECONDS=N runs its queries at 20/s for N seconds each;
// BENCH_NODE_FLAGS="--trace-gc" passes node flags to every bench process.
// Process logs: .data/bench/logs/<server>/ (sqlite, postgres), moved there as each server stops.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config';
import { dropDatabase, freshDatabase, PLAIN_TASK_QUEUE, PORTS, running, startEnv, TASK_QUEUE, type BenchEnv } from './lib/env';
import { explainReadPaths, type Explained } from './lib/explain';
import { ensureBufferPool } from './lib/buffer-pool';
import { loadGenerator, VEGETA_VERSION } from './lib/load';
import { loadAverage, machine } from './lib/machine';
import { keepLogs } from './lib/processes';
import { migrate } from '../src/db/migrate';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../src/temporal/dev-server';
import { writeReport, type RunRecord } from './report';
import { samplePayments, seed, withDb, type Seeded } from './lib/seed';
import { startPostgresTemporal } from './lib/temporal-postgres';
import { FULL_PLAN, SHORT_PAYOUT_QUERIES, SHORT_PLAN } from './plans';
import * as s from './scenarios';
import * as sp from './scenarios-payouts';
import { explainPaymentLists } from './explain-payment-list';
import { listEventsRun } from './scenarios-events';
import { endpointScenarios } from './scenarios-endpoints';

const BENCH_DIR = path.join(PROJECT_ROOT, 'bench');

function parseArgs(argv: string[]) {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument ${arg}`);
    flags.set(match[1]!, match[2] ?? 'true');
  }
  return flags;
}

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

async function seedOrReuse(databaseUrl: string, plan: typeof FULL_PLAN, reuse: boolean, webhookUrl: string): Promise<Seeded> {
  if (reuse) {
    const existing = await withDb(databaseUrl, async (db) => {
      try {
        const [rows] = await db.query('SELECT seeded FROM bench_meta LIMIT 1');
        return JSON.parse((rows as Array<{ seeded: string }>)[0]!.seeded) as Seeded;
      } catch {
        return null;
      }
    }).catch(() => null);
    if (existing && existing.payments === plan.seed.payments && existing.payouts === plan.seed.payouts && existing.merchants.length === plan.seed.merchants) {
      log('reusing the seeded database');
      await migrate(databaseUrl);
      return existing;
    }
  }
  log(`fresh database; seeding ${plan.seed.payments} payments over ${plan.seed.merchants} merchants and ${plan.seed.payouts} payouts`);
  await freshDatabase(databaseUrl);
  const seeded = await seed(databaseUrl, { ...plan.seed, webhookUrl });
  await withDb(databaseUrl, async (db) => {
    await db.query('CREATE TABLE bench_meta (seeded LONGTEXT NOT NULL)');
    await db.query('INSERT INTO bench_meta (seeded) VALUES (?)', [JSON.stringify(seeded)]);
  });
  log(`seeded in ${JSON.stringify(seeded.seconds)} s`);
  return seeded;
}

async function main(): Promise<void> {
  const flags = parseArgs(process.argv.slice(2));
  const full = flags.has('full');
  const plan = structuredClone(full ? FULL_PLAN : SHORT_PLAN);
  // Overrides for exploring one scenario (e.g. a slow query at a lower rate).
  if (flags.has('payout-rate')) plan.payoutQueries.rates = [Number(flags.get('payout-rate'))];
  if (flags.has('payout-seconds')) plan.payoutQueries.durationSeconds = Number(flags.get('payout-seconds'));
  // Create and baseline (a) share rates and durations, so their steps compare one to one.
  if (flags.has('create-rates')) plan.create.rates = plan.baseline.rates = flags.get('create-rates')!.split(',').map(Number);
  if (flags.has('create-seconds')) plan.create.durationSeconds = plan.baseline.durationSeconds = plan.create.saturationSeconds = plan.baseline.saturationSeconds = Number(flags.get('create-seconds'));
  // Saturation of creates and baseline (a) in any mode (the short mode has none): throughput work.
  if (flags.has('saturate')) {
    plan.create.saturationConnections = plan.baseline.saturationConnections = 32;
    plan.create.saturationSeconds = plan.baseline.saturationSeconds = plan.create.durationSeconds;
  }
  // The hot-Payment refund steps of the full mode (10/s, then 8 connections) at any length: a Payment
  // refunded some hundreds of times shows what each refund's projection costs as refunds pile up.
  if (flags.has('hot-refund-seconds')) {
    plan.refundsHot = { rates: [10], durationSeconds: Number(flags.get('hot-refund-seconds')), saturationConnections: 8, saturationSeconds: Number(flags.get('hot-refund-seconds')) };
  }
  if (flags.has('refund-rates')) plan.refundsHot = plan.refundsSpread = { rates: flags.get('refund-rates')!.split(',').map(Number), durationSeconds: Number(flags.get('refund-seconds') ?? plan.refundsSpread.durationSeconds), saturationConnections: null, saturationSeconds: 0 };
  // A smaller seed for scenarios that need only the merchants (the endpoint steps, for instance).
  if (flags.has('seed-payments')) plan.seed.payments = Number(flags.get('seed-payments'));
  if (flags.has('seed-payouts')) plan.seed.payouts = Number(flags.get('seed-payouts'));
  if (flags.has('codec-rate')) plan.codec.rate = Number(flags.get('codec-rate'));
  if (flags.has('codec-seconds')) plan.codec.durationSeconds = Number(flags.get('codec-seconds'));
  if (flags.has('codec-repetitions')) plan.codec.repetitions = Number(flags.get('codec-repetitions'));
  const only = flags.get('only')?.split(',');
  const wants = (name: string) => !only || only.includes(name);
  const label = flags.get('label') ?? plan.mode;
  const settleMs = Number(flags.get('settle-ms') ?? 0);
  const workers = Number(flags.get('workers') ?? 1);
  const postgresWorkers = Number(flags.get('postgres-workers') ?? 2);
  const devServerStore = flags.get('temporal-store') === 'file' ? 'file' : 'memory';
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? `mysql://root@127.0.0.1:3306/payments_bench${full ? '' : '_short'}`;
  if (!new URL(databaseUrl).pathname.startsWith('/payments_bench')) throw new Error('the bench database name must start with payments_bench');

  const loadBefore = loadAverage();
  if (full && loadBefore[0] > 1.5 && !flags.has('force')) {
    throw new Error(`load average is ${loadBefore[0].toFixed(2)} (> 1.5): others are using the machine; run later or pass --force (the report records the load)`);
  }
  const startedAt = new Date().toISOString();
  const notes: string[] = [];
  const servers: RunRecord['servers'] = {};
  let explain: Explained[] = [];

  loadGenerator(log);
  const webhookUrl = `http://127.0.0.1:${PORTS.receiver}/webhooks`;
  const seeded = await seedOrReuse(databaseUrl, plan, flags.has('reuse-db'), webhookUrl);
  if (flags.has('no-webhooks')) {
    await withDb(databaseUrl, async (db) => {
      await db.query('UPDATE merchants SET webhook_url = NULL');
      await db.query('UPDATE webhook_endpoints SET deleted_at = 1 WHERE deleted_at IS NULL');
    });
  }
  const bufferPoolGib = Number(flags.get('buffer-pool-gib') ?? 4);
  const bufferPool = bufferPoolGib > 0 ? await ensureBufferPool(databaseUrl, bufferPoolGib, log) : null;
  running.add(async () => { await bufferPool?.restore(); });

  const runScenarios = async (env: BenchEnv, which: 'sqlite' | 'postgres'): Promise<s.StepResult[]> => {
    const ctx: s.Context = { env, seeded, plan, databaseUrl, log };
    const results: s.StepResult[] = [];
    const step = async (name: string, fn: () => Promise<s.StepResult[]>) => {
      if (!wants(name)) return;
      log(`scenario ${name}`);
      try {
        results.push(...await fn());
      } catch (error) {
        const message = `${which}: scenario ${name} failed: ${error instanceof Error ? error.message : String(error)}`;
        log(message);
        notes.push(message);
      }
    };
    await step('baseline', () => s.baselineTemporal(ctx));
    if (which === 'sqlite') await step('sandbox', () => s.baselineSandbox(ctx));
    await step('create', () => s.createFrictionless(ctx));
    if (which === 'postgres') return results;
    await step('payout-submit', () => sp.submitPayouts(ctx));
    await step('codec', () => s.codecCost(ctx));
    await step('create3ds', () => s.create3ds(ctx));
    if (plan.webhook.rate > 0) await step('webhook', () => s.webhookLagRun(ctx));
    if (!flags.has('no-webhooks')) await step('endpoints', () => endpointScenarios(ctx));
    await step('get', () => s.getPaymentById(ctx));
    await step('payment-list', () => sp.listPaymentsAtScale(ctx));
    await step('payouts', async () => {
      const all = await s.payoutQueries(ctx);
      return s.listPayouts(ctx, full ? all : all.filter((q) => SHORT_PAYOUT_QUERIES.includes(q.label)));
    });
    await step('events', () => listEventsRun(ctx));
    await step('refunds', async () => [...await s.refundsHot(ctx), ...await s.refundsSpread(ctx, full ? 100 : 10)]);
    // Last: the provider holds these answers past the step's end.
    await step('payout-hanging', () => sp.submitPayoutsHanging(ctx));
    return results;
  };

  log('starting the environment (SQLite dev server)');
  // Every dev server gets DEV_SERVER_DYNAMIC_CONFIG (src/temporal/dev-server.ts); these come after it.
  const devServerConfig = (flags.get('dev-server-config') ?? '').split(',').filter(Boolean);
  const devServerArgs = devServerConfig.flatMap((value) => ['--dynamic-config-value', value]);
  let env = await startEnv({ databaseUrl, temporalAddress: null, devServerStore, settleMs, workers, devServerArgs, plainCodec: wants('codec') });
  if (flags.has('hold')) {
    log(`environment up (API ${env.apiUrl}, baseline ${env.baselineUrl}, Temporal ${env.temporalAddress}); Ctrl-C stops it`);
    await new Promise(() => undefined);
  }
  try {
    servers.sqlite = { description: `Temporal CLI v1.5.1 \`server start-dev\` (server 1.29.1, SQLite ${devServerStore === 'file' ? 'file' : 'in-memory'} store, one connection)`, steps: await runScenarios(env, 'sqlite') };
  } finally {
    await env.stop();
    keepLogs('sqlite');
  }

  if (wants('explain')) {
    log('EXPLAIN of the read paths');
    const [payment] = await samplePayments(databaseUrl, seeded.payments, 1);
    const queries = await s.payoutQueries({ env, seeded, plan, databaseUrl, log });
    explain = await explainReadPaths(databaseUrl, payment!, seeded.payoutMerchant.merchantId, queries);
    explain.push(...await explainPaymentLists({ env, seeded, plan, databaseUrl, log }));
  }

  if ((full && !flags.has('no-postgres') && wants('postgres')) || flags.has('postgres')) {
    log('starting the PostgreSQL-backed Temporal server');
    try {
      const pg = await startPostgresTemporal(log);
      try {
        env = await startEnv({ databaseUrl, temporalAddress: pg.address, settleMs, workers: postgresWorkers });
        try {
          servers.postgres = { description: pg.description, steps: await runScenarios(env, 'postgres') };
        } finally {
          await env.stop();
        }
      } finally {
        await pg.stop();
        keepLogs('postgres');
      }
    } catch (error) {
      const message = `PostgreSQL-backed Temporal server: ${error instanceof Error ? error.message : String(error)}`;
      log(message);
      notes.push(message);
    }
  }

  await bufferPool?.restore();
  if (!flags.has('keep-db')) await dropDatabase(databaseUrl);

  const record: RunRecord = {
    label,
    mode: plan.mode,
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machine(),
    loadBefore,
    loadAfter: loadAverage(),
    configuration: {
      'API': '1 process (`src/api/main.ts`), Koa, LOG_LEVEL=info to a file, rate limits raised to 1,000,000/s per key and per client address',
      'workers': `${workers} payments worker process(es) (\`workers/main.ts\`) on the dev server, ${postgresWorkers} on the PostgreSQL-backed server, on task queue ${TASK_QUEUE}, WORKER_MAX_CACHED_WORKFLOWS=${process.env.WORKER_MAX_CACHED_WORKFLOWS ?? '2000 (default)'}, other worker options SDK defaults unless the tuning notes say otherwise`,
      'Temporal dynamic config': `dev server: ${[...DEV_SERVER_DYNAMIC_CONFIG, ...devServerConfig].join(', ')} (src/temporal/dev-server.ts, as for \`npm start\` and the tests, then \`--dev-server-config\`); PostgreSQL-backed server: deploy/temporal/dynamicconfig.yaml, the production file (the same values)`,
      'baseline (a)': 'bench/baseline: BaselineWorkflow (one update running one no-op activity, same activity options as the synchronous path) on its own task queue, its own worker process with the same worker options; a bare HTTP front doing one Update-with-Start per POST',
      'baseline (b)': 'the sandbox acquirer alone: POST /v1/authorizations (card 4242...)',
      'sandbox': `SANDBOX_SETTLE_MS=${settleMs}: a frictionless authorization answers \`succeeded\` at once, so a create answers SUCCEEDED and the Payment can be refunded at once; the settle delay never delays the create itself (with a delay the create answers PROCESSING and the workflow polls later)`,
      'database': `MariaDB at 127.0.0.1:3306, database ${new URL(databaseUrl).pathname.slice(1)}, DATABASE_POOL_SIZE=${process.env.DATABASE_POOL_SIZE ?? '20 (default)'} per process, InnoDB buffer pool ${bufferPool ? `${(bufferPool.size / 1024 ** 3).toFixed(2)} GiB during the run (bench/lib/buffer-pool.ts)` : 'as the server has it'}`,
      'load generator': `vegeta ${VEGETA_VERSION} (Go), a process of its own per step on the same machine, started by the harness (its CPU counts as the load generator); every request built before the step (unique Idempotency-Key, keys rotated over the seeded merchants); paced steps open-loop with latency from the planned send time, saturation steps a fixed number of requests in flight (bench/lib/load.ts)`,
      'payload codec': `the API and workers encrypt every Temporal payload (AES-256-GCM, the bench key); the codec cost steps alternate creates against them and against a second API and worker process with TEMPORAL_CODEC=off (task queue ${PLAIN_TASK_QUEUE}), both pairs up during every step of the run: ${JSON.stringify(plan.codec)}`,
      'webhooks': flags.has('no-webhooks') ? 'none: the merchants have no webhook URL (--no-webhooks)' : 'every merchant has a webhook URL on a local receiver process (answers 200 at once)',
      'durations': JSON.stringify({ warmupSeconds: plan.warmupSeconds, create: plan.create, getById: plan.getById, payoutQueries: plan.payoutQueries }),
    },
    seeding: {
      merchants: seeded.merchants.length + 1,
      payments: seeded.payments,
      'refunds (every tenth payment)': seeded.payments / 10,
      'payouts (one merchant)': seeded.payouts,
      'seconds (merchants, payments, payouts, search index)': `${seeded.seconds.merchants}, ${seeded.seconds.payments}, ${seeded.seconds.payouts}, ${seeded.seconds.searchIndex}`,
    },
    servers,
    explain,
    notes,
  };
  if (interrupted) return;
  const reportFile = path.join(BENCH_DIR, full ? 'REPORT.md' : 'REPORT.short.md');
  writeReport(reportFile, record, path.join(BENCH_DIR, 'NOTES.md'));
  fs.mkdirSync(path.join(BENCH_DIR, 'results'), { recursive: true });
  fs.writeFileSync(path.join(BENCH_DIR, 'results', `${label}.json`), JSON.stringify(record, null, 2));
  log(`report written to ${path.relative(PROJECT_ROOT, reportFile)}`);
}

// Ctrl-C or a CI timeout: stop every process this run started before leaving (and write no report).
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}: stopping the environment`);
    Promise.allSettled([...running].map((stop) => stop())).finally(() => process.exit(130));
  });
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  // Processes still up and the raised buffer pool are put back as on Ctrl-C.
  void Promise.allSettled([...running].map((stop) => stop())).finally(() => process.exit(1));
});
