// The Temporal worker: every workflow type of workflows/index.ts and their activities.
import { NativeConnection, Runtime, Worker, bundleWorkflowCode, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createPaymentActivities } from '../activities/payment';
import { createPayoutActivities } from '../activities/payout';
import { createProjectionActivities } from '../activities/projection';
import { createChoreActivities } from '../activities/chores';
import type { ActivityDeps } from '../activities/deps';
import type { Config } from '../src/config';
import { openDataSource } from '../src/db/data-source';
import { createLogger } from '../src/observability/logger';
import { serveOperations, type HealthReport, type OperationsServer } from '../src/observability/metrics-server';
import { WorkerMetrics, measuredProvider } from '../src/observability/worker-metrics';
import { HttpProviderClient } from '../src/provider/http-client';
import { CardVaultStore } from '../src/vault/card-vault';
import { SecretBox } from '../src/vault/crypto';
import { clientOn } from '../src/temporal/client';
import { registerChoreSchedules } from '../src/temporal/chore-schedules';
import { FAILURE_CONVERTER_PATH, temporalDataConverter } from '../src/temporal/codec';
import { destinationPolicy } from '../src/webhooks/destination';
import { CircuitSweeper } from '../src/webhooks/circuit-sweeper';
import { WebhookRelay } from '../src/webhooks/relay';
import { WebhookSecrets } from '../src/webhooks/secrets';
import { createWebhookActivities } from '../activities/webhooks';
import { WorkerChecks } from '../src/services/health';

/** `.ts` under tsx and jest, `.js` once compiled: the bundler takes either. */
export const WORKFLOWS_PATH = require.resolve('../workflows/index');

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** Bundled once per process: the worker and replay tests share it. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, failureConverterPath: FAILURE_CONVERTER_PATH, logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never });
  return bundle;
}

export interface RunningWorker {
  metrics: WorkerMetrics;
  /** Where this worker serves its /metrics and /health; null when WORKER_METRICS_PORT was taken. */
  metricsPort: number | null;
  /** Settles once the worker has stopped: after `shutdown()`, or (rejected) when a Worker failed. */
  run: Promise<void>;
  /** Whether the worker takes tasks now (not while its database is unreachable). */
  polling(): boolean;
  /** `/health`: 200 with `temporal` and `database` ok, else 503. */
  health(): Promise<HealthReport>;
  /** SIGTERM: stop polling, let running activities finish (WORKER_SHUTDOWN_GRACE_MS), then close. */
  shutdown(): Promise<void>;
}

/**
 * The activities' Temporal client is on the worker's own connection: its calls go through the SDK's
 * native core instead of a second gRPC stack in JavaScript, and a workflow it starts on this task
 * queue can be started eagerly (its first task handed straight back to this worker).
 */
export async function createActivityDeps(config: Config, connection: NativeConnection, metrics = new WorkerMetrics()): Promise<ActivityDeps> {
  const dataSource = await openDataSource(config.databaseUrl);
  const box = new SecretBox(config.vaultKeyHex);
  const shared = {
    metrics,
    dataSource,
    temporal: clientOn(connection, config),
    taskQueue: config.taskQueue,
    webhookSecrets: new WebhookSecrets(dataSource, box),
    webhooks: {
      attemptTimeoutMs: config.webhookAttemptTimeoutMs, initialRetrySeconds: config.webhookInitialRetrySeconds, retrySpanSeconds: config.webhookRetrySpanSeconds,
      destinations: destinationPolicy(config),
    },
    logger: createLogger('worker', config.logLevel),
  };
  return {
    ...shared,
    relay: new WebhookRelay(shared, {
      leaseMs: config.webhookRelayLeaseSeconds * 1000, sweepIntervalMs: config.webhookRelaySweepSeconds * 1000, concurrency: config.webhookRelayConcurrency,
    }),
    vault: new CardVaultStore(dataSource, box),
    secretBox: box,
    providers: {
      test: measuredProvider(new HttpProviderClient({ baseUrl: config.sandboxUrl }), metrics),
      live: config.liveProviderUrl ? measuredProvider(new HttpProviderClient({ baseUrl: config.liveProviderUrl }), metrics) : null,
    },
  };
}

/** Capacity settings of a worker; the bench baseline worker uses the same. */
export function workerTuning(config: Pick<Config, 'workerMaxCachedWorkflows'>): Pick<WorkerOptions, 'maxCachedWorkflows'> {
  return {
    maxCachedWorkflows: config.workerMaxCachedWorkflows,
  };
}

let runtimeInstalled = false;
/**
 * The SDK runtime, installed once per process: without the SDK's own signal handlers (the entry
 * point decides what SIGTERM does: workers/main.ts), and with Temporal's own worker metrics (task
 * latencies, slots, polls) when TEMPORAL_METRICS_PORT asks for them.
 */
function installRuntime(config: Config): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({
      shutdownSignals: [],
      ...(config.temporalMetricsPort === null ? {} : { telemetryOptions: { metrics: { prometheus: { bindAddress: `0.0.0.0:${config.temporalMetricsPort}` } } } }),
    });
  } catch {
    // A runtime is already in use in this process (a test that made a worker or replayed first).
  }
}

/** How often the watchdog asks the database, how long an answer may take, and after how many failures in a row polling stops. */
const DATABASE_WATCH = { intervalMs: 1_000, timeoutMs: 1_000, failuresToSuspend: 2 };

/**
 * A worker with its metrics and health: whoever runs it (`npm run worker`, `npm start`, the tests)
 * gets /metrics and /health on WORKER_METRICS_PORT. A taken port only warns: replicas on one host
 * must not stop each other from working.
 *
 * A worker that cannot reach the database would take tasks it cannot do (32 of 100 creates hung
 * through a 20 s cut while another worker was healthy), so a watchdog asks the database every
 * second on a connection of its own; after two failed answers in a row (at most about 4 s after
 * the cut) the Worker is shut down, which stops its polls at once and hands its sticky workflows
 * back to the task queue, and a new Worker polls again on the first answer after. Tasks of that
 * time go to the other workers.
 */
export async function startWorker(config: Config): Promise<RunningWorker> {
  installRuntime(config);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const deps = await createActivityDeps(config, connection);
  const bundleCode = await workflowBundle();
  const checks = new WorkerChecks(deps.dataSource, () => connection.workflowService.getSystemInfo({}));
  const create = () => Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    workflowBundle: bundleCode,
    // Decrypts activations and activity inputs, encrypts commands and results (outside the sandbox).
    dataConverter: temporalDataConverter(config.temporalCodec),
    activities: {
      ...createPaymentActivities(deps), ...createPayoutActivities(deps), ...createProjectionActivities(deps), ...createWebhookActivities(deps),
      ...createChoreActivities(deps),
    },
    // A stopping worker finishes what it runs (an authorization waits at most 15 s on the acquirer)
    // instead of leaving it to a task time-out.
    shutdownGraceTime: config.workerShutdownGraceMs,
    ...workerTuning(config),
  });

  let stopping = false;
  let stopped: () => void = () => {};
  let failed: (error: unknown) => void = () => {};
  const run = new Promise<void>((resolve, reject) => { stopped = resolve; failed = reject; });
  /** Every Worker's run, the current one's and those still draining after a suspension. */
  const runs = new Set<Promise<void>>();
  let current: Worker | null = null;
  const poll = async () => {
    const worker = await create();
    const run = worker.run().catch((error: unknown) => {
      if (!stopping && current === worker) failed(error);
    });
    runs.add(run);
    void run.finally(() => runs.delete(run));
    current = worker;
  };
  const suspend = () => {
    const worker = current;
    current = null;
    // Stops its polls now; tasks it is running finish (or fail on the database) and report.
    if (worker?.getState() === 'RUNNING') worker.shutdown();
  };
  await poll();
  deps.relay.start();
  // Failing endpoints are drained by whichever worker's sweeper claims them first.
  const circuits = new CircuitSweeper(deps, {
    sweepIntervalMs: config.webhookCircuitSweepSeconds * 1000, concurrency: config.webhookCircuitDrains,
    leaseMs: config.webhookRelayLeaseSeconds * 1000, retrySpanMs: config.webhookRetrySpanSeconds * 1000,
  });
  circuits.start();
  // The purges and the CVC sweep run once per cluster, as schedules whose runs any worker takes.
  if (config.choreSchedules) await registerChoreSchedules(deps.temporal, config, (scheduleId, error) => deps.logger.warn({ scheduleId, err: String(error) }, 'chore schedule left as it is: it could not be read'));

  let failures = 0;
  let resuming: Promise<void> | null = null;
  const watch = setInterval(() => {
    void checks.database(DATABASE_WATCH.timeoutMs).then((database) => {
      if (stopping) return;
      failures = database === 'ok' ? 0 : failures + 1;
      if (failures === DATABASE_WATCH.failuresToSuspend && current) {
        deps.logger.warn({ failures }, 'database unreachable: worker stops polling until it answers');
        deps.metrics.pollingSuspensions.inc();
        suspend();
      } else if (failures === 0 && !current && !resuming) {
        resuming = poll().then(
          () => { deps.logger.info({}, 'database answers again: worker polls again'); },
          (error: unknown) => { deps.logger.warn({ err: String(error) }, 'worker could not poll again; retrying'); },
        ).finally(() => { resuming = null; });
      }
    });
  }, DATABASE_WATCH.intervalMs);
  watch.unref();

  const health = async (): Promise<HealthReport> => {
    const [database, temporal] = await Promise.all([checks.database(2000), checks.temporal(2000)]);
    const ok = database === 'ok' && temporal === 'ok';
    return { ok, body: { status: ok ? 'ok' : 'unavailable', checks: { database, temporal }, polling: current !== null } };
  };
  const operations: OperationsServer | null = await serveOperations({ registry: deps.metrics.registry, health }, {
    host: config.workerMetricsHost, port: config.workerMetricsPort, limits: config.http, logger: deps.logger,
  }).then(
    (served) => { deps.logger.info({ port: served.port, host: config.workerMetricsHost }, 'worker metrics on /metrics, health on /health'); return served; },
    (error: unknown) => { deps.logger.warn({ err: String(error), port: config.workerMetricsPort }, 'worker metrics not served'); return null; },
  );

  let shutdown: Promise<void> | null = null;
  return {
    metrics: deps.metrics,
    metricsPort: operations?.port ?? null,
    run,
    polling: () => current !== null,
    health,
    shutdown() {
      shutdown ??= (async () => {
        stopping = true;
        clearInterval(watch);
        await resuming;
        suspend();
        await Promise.all([...runs]);
        await Promise.all([deps.relay.stop(), circuits.stop()]);
        await operations?.close();
        await checks.close();
        await connection.close();
        await deps.dataSource.destroy();
        stopped();
      })();
      return shutdown;
    },
  };
}
