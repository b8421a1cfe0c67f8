// `npm run worker`: one worker process. Stateless: run as many as the load needs.
import { config } from '../src/config';
import { createLogger } from '../src/observability/logger';
import { Runtime } from '@temporalio/worker';
import { startWorker } from './worker';

const logger = createLogger('worker', config().logLevel);

// Temporal's own worker metrics (task latencies, slots, polls) from the SDK runtime, when asked for.
if (process.env.TEMPORAL_METRICS_PORT) {
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `0.0.0.0:${process.env.TEMPORAL_METRICS_PORT}` } } } });
}

startWorker(config()).then(async (running) => {
  // Our metrics (provider latency, webhook deliveries, status changes); a taken port only warns.
  const metricsPort = Number(process.env.WORKER_METRICS_PORT ?? 9464);
  await running.metrics.serve(metricsPort).then(
    (served) => logger.info({ port: served.port }, 'worker metrics on /metrics'),
    (error: unknown) => logger.warn({ err: String(error) }, 'worker metrics not served'),
  );
  logger.info({ taskQueue: config().taskQueue }, 'worker running');
  const stop = () => { running.shutdown().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  running.run.catch((error: unknown) => { logger.error({ err: String(error) }, 'worker stopped'); process.exit(1); });
}, (error: unknown) => {
  logger.error({ err: error instanceof Error ? error.message : String(error) }, 'worker failed to start');
  process.exit(1);
});
