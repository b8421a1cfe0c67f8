// The Temporal worker: every workflow type of workflows/index.ts and their activities.
import path from 'node:path';
import { NativeConnection, Runtime, Worker, bundleWorkflowCode, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createPaymentActivities } from '../activities/payment';
import { createPayoutActivities } from '../activities/payout';
import { createProjectionActivities } from '../activities/projection';
import type { ActivityDeps } from '../activities/deps';
import type { Config } from '../src/config';
import { openDataSource } from '../src/db/data-source';
import { createLogger } from '../src/observability/logger';
import { serveMetrics, type MetricsServer } from '../src/observability/metrics-server';
import { WorkerMetrics, measuredProvider } from '../src/observability/worker-metrics';
import { HttpProviderClient } from '../src/provider/http-client';
import { CardVaultStore } from '../src/vault/card-vault';
import { startCvcSweep } from '../src/vault/cvc-sweep';
import { SecretBox } from '../src/vault/crypto';
import { clientOn } from '../src/temporal/client';
import { FAILURE_CONVERTER_PATH, temporalDataConverter } from '../src/temporal/codec';
import { destinationPolicy } from '../src/webhooks/destination';
import { WebhookRelay } from '../src/webhooks/relay';
import { WebhookSecrets } from '../src/webhooks/secrets';
import { createWebhookActivities } from '../activities/webhooks';

/** First webhook attempts in flight at once per worker (the rest queue in memory under their lease). */
const RELAY_CONCURRENCY = 32;

export const WORKFLOWS_PATH = path.join(__dirname, '..', 'workflows', 'index.ts');

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** Bundled once per process: the worker and replay tests share it. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, failureConverterPath: FAILURE_CONVERTER_PATH, logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never });
  return bundle;
}

export interface RunningWorker {
  worker: Worker;
  metrics: WorkerMetrics;
  /** Where this worker serves its /metrics; null when WORKER_METRICS_PORT was taken. */
  metricsPort: number | null;
  run: Promise<void>;
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
    webhooks: { attemptTimeoutMs: config.webhookAttemptTimeoutMs, initialRetrySeconds: config.webhookInitialRetrySeconds, destinations: destinationPolicy(config) },
    logger: createLogger('worker', config.logLevel),
  };
  return {
    ...shared,
    relay: new WebhookRelay(shared, {
      leaseMs: config.webhookRelayLeaseSeconds * 1000, sweepIntervalMs: config.webhookRelaySweepSeconds * 1000, concurrency: RELAY_CONCURRENCY,
    }),
    vault: new CardVaultStore(dataSource, box),
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
/** Temporal's own worker metrics (task latencies, slots, polls), when TEMPORAL_METRICS_PORT asks for them. */
function installRuntimeMetrics(config: Config): void {
  if (config.temporalMetricsPort === null || runtimeInstalled) return;
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `0.0.0.0:${config.temporalMetricsPort}` } } } });
  runtimeInstalled = true;
}

/**
 * A worker with its metrics: whoever runs it (`npm run worker`, `npm start`, the tests) gets
 * /metrics on WORKER_METRICS_PORT. A taken port only warns: replicas on one host must not stop
 * each other from working.
 */
export async function startWorker(config: Config): Promise<RunningWorker> {
  installRuntimeMetrics(config);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const deps = await createActivityDeps(config, connection);
  const worker = await Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    workflowBundle: await workflowBundle(),
    // Decrypts activations and activity inputs, encrypts commands and results (outside the sandbox).
    dataConverter: temporalDataConverter(config.temporalCodec),
    activities: {
      ...createPaymentActivities(deps), ...createPayoutActivities(deps), ...createProjectionActivities(deps), ...createWebhookActivities(deps),
    },
    ...workerTuning(config),
  });
  const run = worker.run();
  deps.relay.start();
  const vaultSweep = startCvcSweep(deps, { intervalSeconds: config.vaultSweepSeconds, paymentActionTtlSeconds: config.paymentActionTtlSeconds });
  const metricsServer: MetricsServer | null = await serveMetrics(deps.metrics.registry, config.workerMetricsPort).then(
    (served) => { deps.logger.info({ port: served.port }, 'worker metrics on /metrics'); return served; },
    (error: unknown) => { deps.logger.warn({ err: String(error), port: config.workerMetricsPort }, 'worker metrics not served'); return null; },
  );
  return {
    worker,
    metrics: deps.metrics,
    metricsPort: metricsServer?.port ?? null,
    run,
    async shutdown() {
      await metricsServer?.close();
      vaultSweep.stop();
      worker.shutdown();
      await run.catch(() => undefined);
      await deps.relay.stop();
      await connection.close();
      await deps.dataSource.destroy();
    },
  };
}
