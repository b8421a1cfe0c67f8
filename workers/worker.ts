// The Temporal worker: every workflow type of workflows/index.ts and their activities.
import path from 'node:path';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createPaymentActivities } from '../activities/payment';
import { createPayoutActivities } from '../activities/payout';
import { createProjectionActivities } from '../activities/projection';
import type { ActivityDeps } from '../activities/deps';
import type { Config } from '../src/config';
import { openDataSource } from '../src/db/data-source';
import { createLogger } from '../src/observability/logger';
import { WorkerMetrics, measuredProvider } from '../src/observability/worker-metrics';
import { HttpProviderClient } from '../src/provider/http-client';
import { CardVaultStore } from '../src/vault/card-vault';
import { startCvcSweep } from '../src/vault/cvc-sweep';
import { SecretBox } from '../src/vault/crypto';
import { connectTemporal } from '../src/temporal/client';
import { WebhookRelay } from '../src/webhooks/relay';
import { WebhookSecrets } from '../src/webhooks/secrets';
import { createWebhookActivities } from '../activities/webhooks';

/** First webhook attempts in flight at once per worker (the rest queue in memory under their lease). */
const RELAY_CONCURRENCY = 32;

export const WORKFLOWS_PATH = path.join(__dirname, '..', 'workflows', 'index.ts');

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
/** Bundled once per process: the worker and replay tests share it. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never });
  return bundle;
}

export interface RunningWorker {
  worker: Worker;
  metrics: WorkerMetrics;
  run: Promise<void>;
  shutdown(): Promise<void>;
}

export async function createActivityDeps(config: Config, metrics = new WorkerMetrics()): Promise<ActivityDeps> {
  const dataSource = await openDataSource(config.databaseUrl);
  const box = new SecretBox(config.vaultKeyHex);
  const shared = {
    metrics,
    dataSource,
    temporal: await connectTemporal(config.temporalAddress, config.temporalNamespace),
    taskQueue: config.taskQueue,
    webhookSecrets: new WebhookSecrets(dataSource, box),
    webhooks: { attemptTimeoutMs: config.webhookAttemptTimeoutMs, initialRetrySeconds: config.webhookInitialRetrySeconds },
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

/** Capacity settings of a worker from the environment; the bench baseline worker uses the same. */
export function workerTuning(): Pick<WorkerOptions, 'maxCachedWorkflows'> {
  return {
    maxCachedWorkflows: Number(process.env.WORKER_MAX_CACHED_WORKFLOWS || 2000),
  };
}

export async function startWorker(config: Config): Promise<RunningWorker> {
  const deps = await createActivityDeps(config);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: {
      ...createPaymentActivities(deps), ...createPayoutActivities(deps), ...createProjectionActivities(deps), ...createWebhookActivities(deps),
    },
    ...workerTuning(),
  });
  const run = worker.run();
  deps.relay.start();
  const vaultSweep = startCvcSweep(deps, { intervalSeconds: config.vaultSweepSeconds, paymentActionTtlSeconds: config.paymentActionTtlSeconds });
  return {
    worker,
    metrics: deps.metrics,
    run,
    async shutdown() {
      vaultSweep.stop();
      worker.shutdown();
      await run.catch(() => undefined);
      await deps.relay.stop();
      await connection.close();
      await deps.temporal.connection.close();
      await deps.dataSource.destroy();
    },
  };
}
