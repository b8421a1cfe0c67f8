// The bench environment: its own database, Temporal server, sandbox, worker(s), API, baseline
// processes and webhook receiver, on the bench's own ports. Everything started here is stopped
// by `stop()`, in reverse order.
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { migrate } from '../../src/db/migrate';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server';
import { untilTemporalServes } from '../../src/temporal/serving';
import { nameProcess } from './cpu';
import { BENCH_DATA_DIR, BENCH_LOG_DIR, spawnTs, waitForLog, type BenchProcess } from './processes';

/** BENCH_PORT_OFFSET=N moves every bench port by N, so that two benches (two checkouts) can run side by side. */
const OFFSET = Number(process.env.BENCH_PORT_OFFSET ?? 0);
if (!Number.isInteger(OFFSET) || OFFSET < 0 || OFFSET > 1000) throw new Error('BENCH_PORT_OFFSET must be an integer from 0 to 1000');

export const PORTS = {
  temporalSqlite: 17340 + OFFSET,
  /** The PostgreSQL-backed server uses 17342-17349 (plus the offset) for its four services (gRPC + membership). */
  temporalPostgres: 17342 + OFFSET,
  sandbox: 13340 + OFFSET,
  api: 13350 + OFFSET,
  baseline: 13351 + OFFSET,
  /** The API without the payload codec (TEMPORAL_CODEC=off) of the codec cost scenario. */
  plainApi: 13352 + OFFSET,
  receiver: 13359 + OFFSET,
  workerMetrics: 19340 + OFFSET,
  plainWorkerMetrics: 19390 + OFFSET,
} as const;

export const VAULT_KEY = 'b7'.repeat(32);
/** The bench's payload codec key (one byte repeated: production refuses it). */
export const CODEC_KEYS = `bench:${'b8'.repeat(32)}`;
export const TASK_QUEUE = 'payments-bench';
/**
 * How long a Payment waits for its 3DS challenge in the bench (PAYMENT_ACTION_TTL_SECONDS; 900 by
 * default). The 3DS steps leave hundreds of challenges unanswered; with the default their expiries
 * came back together 15 minutes later, inside whichever step then ran (in `full-s18`, the hot
 * Payment's 5/s refunds). With a minute the 3DS scenario waits them out itself (create3ds).
 */
export const ACTION_TTL_SECONDS = 60;
export const PLAIN_TASK_QUEUE = 'payments-bench-plain';

export interface EnvOptions {
  databaseUrl: string;
  /** Temporal frontend to use; null starts the SQLite dev server. */
  temporalAddress: string | null;
  /** The dev server's SQLite store: in memory (as the tests run it) or a file (as `npm start` does). */
  devServerStore?: 'memory' | 'file';
  settleMs: number;
  workers: number;
  /** Extra `temporal server start-dev` arguments (e.g. dynamic config values). */
  devServerArgs?: string[];
  /** Extra settings for the worker processes (tuning experiments). */
  workerEnv?: Record<string, string>;
  apiEnv?: Record<string, string>;
  /** Also an API and a worker without the payload codec, on a task queue of their own (the codec cost scenario). */
  plainCodec?: boolean;
}

export interface BenchEnv {
  apiUrl: string;
  /** The API whose payloads reach Temporal in plaintext (TEMPORAL_CODEC=off); null unless asked for. */
  plainApiUrl: string | null;
  baselineUrl: string;
  sandboxUrl: string;
  receiverUrl: string;
  temporalAddress: string;
  serviceEnv: Record<string, string>;
  processes: BenchProcess[];
  stop(): Promise<void>;
}

function dbName(url: string): string {
  return new URL(url).pathname.slice(1);
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const parsed = new URL(url);
  const connection = await mysql.createConnection({ host: parsed.hostname, port: Number(parsed.port || 3306), user: parsed.username || 'root', password: parsed.password });
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const name = dbName(url);
  if (!name.startsWith('payments_bench')) throw new Error(`refusing to drop ${name}: bench databases start with payments_bench`);
  await adminQuery(url, `DROP DATABASE IF EXISTS \`${name}\``);
}

/** Drops and re-creates the bench database with the current migrations. */
export async function freshDatabase(url: string): Promise<void> {
  await dropDatabase(url);
  await migrate(url);
}

/** Stops of everything running, so an interrupted run (Ctrl-C) still tears down. */
export const running = new Set<() => Promise<void>>();

export async function startEnv(options: EnvOptions): Promise<BenchEnv> {
  fs.mkdirSync(BENCH_LOG_DIR, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const processes: BenchProcess[] = [];
  const stop = async () => {
    running.delete(stop);
    for (const fn of stops.reverse()) await fn().catch(() => undefined);
    stops.length = 0;
  };
  running.add(stop);
  try {
    let temporalAddress = options.temporalAddress;
    if (temporalAddress === null) {
      const dbFile = options.devServerStore === 'file' ? path.join(BENCH_DATA_DIR, 'temporal.sqlite') : null;
      if (dbFile) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(dbFile + suffix, { force: true });
      fs.rmSync(path.join(BENCH_LOG_DIR, 'temporal.log'), { force: true });
      const server: DevServer = await startDevServer({ port: PORTS.temporalSqlite, uiPort: null, dbFile, logFile: path.join(BENCH_LOG_DIR, 'temporal.log'), extraArgs: options.devServerArgs });
      nameProcess(server.process.pid, 'temporal');
      stops.push(async () => {
        await server.stop();
        if (dbFile) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(dbFile + suffix, { force: true });
      });
      temporalAddress = server.address;
    } else {
      // startDevServer returns once its server serves; a server given by address may not yet.
      await untilTemporalServes(temporalAddress);
    }

    const serviceEnv: Record<string, string> = {
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      SANDBOX_URL: `http://127.0.0.1:${PORTS.sandbox}`,
      SANDBOX_SETTLE_MS: String(options.settleMs),
      SANDBOX_NOTIFY_SECRET: 'bench-notify-secret',
      VAULT_KEY,
      TEMPORAL_CODEC_KEYS: CODEC_KEYS,
      PORT: String(PORTS.api),
      PUBLIC_BASE_URL: `http://127.0.0.1:${PORTS.api}`,
      // The load is the point here: neither the per-key nor the per-address limit may shape it
      // (every request of the bench comes from 127.0.0.1).
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1000000',
      RATE_LIMIT_ADDRESS_BURST: '1000000',
      PAYMENT_ACTION_TTL_SECONDS: String(ACTION_TTL_SECONDS),
      LOG_LEVEL: 'info',
      DATA_DIR: BENCH_DATA_DIR,
    };

    const start = async (name: string, entry: string, args: string[], env: Record<string, string>, ready: string) => {
      const proc = spawnTs(name, entry, args, env);
      processes.push(proc);
      stops.push(() => proc.stop());
      await waitForLog(proc, ready);
      return proc;
    };

    await start('receiver', 'bench/lib/receiver-main.ts', [], { PORT: String(PORTS.receiver) }, 'listening');
    await start('sandbox', 'src/provider/sandbox/main.ts', [], {
      SANDBOX_PORT: String(PORTS.sandbox), SANDBOX_SETTLE_MS: String(options.settleMs), SANDBOX_NOTIFY_SECRET: 'bench-notify-secret',
    }, 'listening');
    const workerStarts = [];
    for (let i = 0; i < options.workers; i += 1) {
      workerStarts.push(start(`worker-${i}`, 'workers/main.ts', [], { ...serviceEnv, WORKER_METRICS_PORT: String(PORTS.workerMetrics + i), ...(options.workerEnv ?? {}) }, 'worker running'));
    }
    workerStarts.push(start('baseline-worker', 'bench/baseline/main.ts', ['worker'], { ...serviceEnv, ...(options.workerEnv ?? {}) }, 'baseline worker running'));
    await Promise.all(workerStarts);
    await start('api', 'src/api/main.ts', [], { ...serviceEnv, ...(options.apiEnv ?? {}) }, 'API listening');
    if (options.plainCodec) {
      // Same settings, codec off: named apart from `api` and `worker-*`, so the CPU tables keep them out of those columns.
      const plainEnv = { ...serviceEnv, TEMPORAL_CODEC: 'off', TEMPORAL_TASK_QUEUE: PLAIN_TASK_QUEUE, CHORE_SCHEDULES: 'off' };
      await start('plain-worker', 'workers/main.ts', [], { ...plainEnv, WORKER_METRICS_PORT: String(PORTS.plainWorkerMetrics), ...(options.workerEnv ?? {}) }, 'worker running');
      await start('plain-api', 'src/api/main.ts', [], { ...plainEnv, PORT: String(PORTS.plainApi), PUBLIC_BASE_URL: `http://127.0.0.1:${PORTS.plainApi}`, ...(options.apiEnv ?? {}) }, 'API listening');
    }
    await start('baseline-server', 'bench/baseline/main.ts', ['server'], { ...serviceEnv, PORT: String(PORTS.baseline) }, 'baseline server listening');

    return {
      apiUrl: `http://127.0.0.1:${PORTS.api}`,
      plainApiUrl: options.plainCodec ? `http://127.0.0.1:${PORTS.plainApi}` : null,
      baselineUrl: `http://127.0.0.1:${PORTS.baseline}`,
      sandboxUrl: `http://127.0.0.1:${PORTS.sandbox}`,
      receiverUrl: `http://127.0.0.1:${PORTS.receiver}`,
      temporalAddress,
      serviceEnv,
      processes,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
