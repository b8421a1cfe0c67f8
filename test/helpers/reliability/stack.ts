// The whole service, run by the reliability suite on resources of its own: private MariaDB,
// file-backed Temporal dev server, sandbox acquirer, worker processes, an API process (all of
// which the process faults kill or restart) and an in-process API for the test's own reads.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { RunningApi } from '../../../src/api/server';
import { migrate } from '../../../src/db/migrate';
import { startDevServer, type DevServer } from '../../../src/temporal/dev-server';
import { startTestApi } from '../api';
import { spawnTs, waitForLog, type ManagedProcess } from '../processes';
import { killHard } from '../temporal';
import { TEST_ENV, workerEnv } from '../test-env';
import { RELIABILITY, RELIABILITY_LOG_DIR } from './config';
import { auditLedger, type AuditReport, type Ledger } from './ledger';
import { PrivateMariaDb } from './mariadb';

/** Every process this suite spawns carries this, so a later run can find what an aborted one left. */
const SUITE_MARKER = 'RELIABILITY_SUITE=payments_rel';
const [SUITE_MARKER_NAME, SUITE_MARKER_VALUE] = SUITE_MARKER.split('=') as [string, string];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readProc(pid: string, file: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Kills what an aborted earlier run of this suite left running (its workers, sandbox, API and
 * Temporal server would hold our ports or, worse, poll our task queue). Only processes that carry
 * the suite's marker, or the Temporal server on the suite's own port, are touched.
 */
export function killLeftovers(): number[] {
  if (!fs.existsSync('/proc')) return [];
  const killed: number[] = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (Number(pid) === process.pid) continue;
    const cmdline = readProc(pid, 'cmdline').split('\0');
    const ours = readProc(pid, 'environ').split('\0').includes(SUITE_MARKER)
      || (cmdline.includes('start-dev') && cmdline.includes(String(RELIABILITY.temporalPort)));
    if (!ours) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
      killed.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}

export function apiProcessEnv(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return workerEnv({
    PORT: String(port),
    PUBLIC_BASE_URL: url,
    SANDBOX_NOTIFY_SECRET: TEST_ENV.notifySecret,
    PAYMENT_ACTION_TTL_SECONDS: String(RELIABILITY.actionTtlSeconds),
    IDEMPOTENCY_LEASE_MS: String(RELIABILITY.idempotencyLeaseMs),
    // Load runs: the service's own rate limit is tested on its own API (rate-limit section).
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    [SUITE_MARKER_NAME]: SUITE_MARKER_VALUE,
  });
}

/** An API server process (`src/api/main.ts`) of the suite on `port`, ready to answer. */
export async function spawnApiProcess(name: string, port: number, env: Record<string, string> = {}): Promise<ManagedProcess> {
  const api = spawnTs(name, 'src/api/main.ts', { ...apiProcessEnv(port), ...env });
  await waitForLog(api.logFile, 'API listening', 120_000);
  return api;
}

/**
 * The suite's fixed ports and datadir allow one run per machine, and `npm test` runs it too: a run
 * holds a listening socket on the lock port for its whole life, and another run waits for it. The
 * kernel frees the port when a run dies, so a crashed run never leaves the lock behind.
 */
async function acquireRunLock(timeoutMs = 3_600_000): Promise<net.Server> {
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    const server = net.createServer();
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(RELIABILITY.lockPort, '127.0.0.1', () => resolve(true));
    });
    if (listening) return server;
    if (Date.now() > deadline) throw new Error(`another reliability run has held port ${RELIABILITY.lockPort} for ${timeoutMs / 60_000} minutes`);
    if (!announced) console.warn(`waiting for another reliability run to finish (it holds port ${RELIABILITY.lockPort})`);
    announced = true;
    await sleep(2000);
  }
}

export class ReliabilityStack {
  readonly mariadb = new PrivateMariaDb(RELIABILITY.mariadb);
  temporal: DevServer | null = null;
  sandbox: ManagedProcess | null = null;
  worker: ManagedProcess | null = null;
  apiProcess: ManagedProcess | null = null;
  /** In-process API of the test: admin operations, database reads and the Temporal client. */
  api!: RunningApi;
  readonly apiProcessUrl = `http://127.0.0.1:${RELIABILITY.apiProcessPort}`;
  readonly temporalAddress = `127.0.0.1:${RELIABILITY.temporalPort}`;
  private workersStarted = 0;
  private lock: net.Server | null = null;

  async start(): Promise<void> {
    this.lock = await acquireRunLock();
    // Holding the lock, anything still carrying the suite's marker belongs to a run that died.
    killLeftovers();
    fs.rmSync(RELIABILITY_LOG_DIR, { recursive: true, force: true });
    fs.mkdirSync(RELIABILITY_LOG_DIR, { recursive: true });
    fs.rmSync(path.dirname(RELIABILITY.temporalDbFile), { recursive: true, force: true });
    this.sandbox = spawnTs('sandbox', 'src/provider/sandbox/main.ts', {
      SANDBOX_PORT: String(TEST_ENV.sandboxPort),
      SANDBOX_SETTLE_MS: String(TEST_ENV.settleMs),
      SANDBOX_NOTIFY_SECRET: TEST_ENV.notifySecret,
      SANDBOX_CONTROL_TOKEN: TEST_ENV.sandboxControlToken,
      [SUITE_MARKER_NAME]: SUITE_MARKER_VALUE,
    });
    // The database, Temporal and the sandbox come up side by side; workers and APIs need all three.
    await Promise.all([
      this.mariadb.recreate()
        .then(() => this.mariadb.start())
        .then(() => this.mariadb.recreateDatabase(new URL(RELIABILITY.databaseUrl).pathname.slice(1)))
        .then(() => migrate(RELIABILITY.databaseUrl)),
      this.startTemporal(),
      waitForLog(this.sandbox.logFile, 'listening'),
    ]);
    await Promise.all([this.startWorker(), this.startApiProcess()]);
    this.api = await startTestApi({
      port: RELIABILITY.apiPort,
      publicBaseUrl: `http://127.0.0.1:${RELIABILITY.apiPort}`,
      paymentActionTtlSeconds: RELIABILITY.actionTtlSeconds,
      rateLimitPerSecond: 100_000,
      rateLimitBurst: 100_000,
    });
  }

  async stop(): Promise<void> {
    await this.api?.close().catch(() => undefined);
    await this.apiProcess?.stop();
    await this.worker?.stop();
    await this.sandbox?.stop();
    await this.temporal?.stop();
    await this.mariadb.stop();
    await new Promise<void>((resolve) => (this.lock ? this.lock.close(() => resolve()) : resolve()));
  }

  private async startTemporal(): Promise<void> {
    this.temporal = await startDevServer({
      port: RELIABILITY.temporalPort,
      uiPort: null,
      dbFile: RELIABILITY.temporalDbFile,
      logFile: path.join(RELIABILITY_LOG_DIR, 'temporal.log'),
    });
  }

  /** A fresh worker process on the suite's task queue, ready to poll. */
  async startWorker(): Promise<void> {
    const metricsPort = RELIABILITY.workerMetricsPorts[this.workersStarted % RELIABILITY.workerMetricsPorts.length]!;
    this.workersStarted += 1;
    const worker = spawnTs('worker', 'workers/main.ts', workerEnv({ WORKER_METRICS_PORT: String(metricsPort), [SUITE_MARKER_NAME]: SUITE_MARKER_VALUE }));
    this.worker = worker;
    await waitForLog(worker.logFile, 'worker running', 120_000);
  }

  /** kill -9: whatever the worker had in flight is left to Temporal's timeouts and retries. */
  async killWorker(): Promise<void> {
    if (this.worker) await killHard(this.worker);
    this.worker = null;
  }

  /** A worker may stop by itself while Temporal is away; this brings one back if so. */
  async ensureWorker(): Promise<boolean> {
    const running = this.worker && this.worker.child.exitCode === null && this.worker.child.signalCode === null;
    if (running) return false;
    await this.startWorker();
    return true;
  }

  async startApiProcess(): Promise<void> {
    this.apiProcess = await spawnApiProcess('api-process', RELIABILITY.apiProcessPort);
  }

  /** kill -9 of the API process, then the same port again (3DS notifications are sent there). */
  async restartApiProcess(downMs: number): Promise<void> {
    if (this.apiProcess) await killHard(this.apiProcess);
    this.apiProcess = null;
    await sleep(downMs);
    await this.startApiProcess();
  }

  /** Stops the Temporal dev server and starts it again on the same file: nothing may be lost. */
  async restartTemporal(downMs: number): Promise<void> {
    await this.temporal?.stop();
    this.temporal = null;
    await sleep(downMs);
    await this.startTemporal();
  }

  /** The audit of a run's ledger against this stack's database, Temporal and sandbox. */
  audit(ledger: Ledger, dedicatedMerchants: Array<{ merchantId: string }>, convergeTimeoutMs?: number): Promise<AuditReport> {
    return auditLedger(ledger, {
      dataSource: this.api.deps.dataSource,
      temporal: this.api.deps.temporal,
      baseUrl: () => this.apiProcessUrl,
      dedicatedMerchants: dedicatedMerchants.map((m) => m.merchantId),
      convergeTimeoutMs,
    });
  }

  /** Stops the private MariaDB cleanly and starts it again. */
  async restartDatabase(downMs: number): Promise<void> {
    await this.mariadb.stop();
    await sleep(downMs);
    await this.mariadb.start();
  }
}
