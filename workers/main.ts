// `npm run worker`: one worker process. Stateless: run as many as the load needs.
import { TEMPORAL_SECRETS, assertSecrets, config } from '../src/config';
import { processLogger } from '../src/observability/logger';
import { startWorker } from './worker';

const logger = processLogger('worker');

async function main(): Promise<void> {
  assertSecrets(['VAULT_KEY', ...TEMPORAL_SECRETS]);
  const cfg = config();
  const running = await startWorker(cfg);
  logger.info({ taskQueue: cfg.taskQueue, metricsPort: running.metricsPort }, 'worker running');
  // SIGTERM and SIGINT stop polling at once and let running activities finish (CONTRACT 16); a
  // second signal does not cut that short. The guard ends a shutdown that hangs past its grace.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, grace_ms: cfg.workerShutdownGraceMs }, 'worker stopping: finishing running activities');
    setTimeout(() => process.exit(1), cfg.workerShutdownGraceMs + 10_000).unref();
    running.shutdown().then(() => { logger.info({}, 'worker stopped'); process.exit(0); }, () => process.exit(1));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  running.run.catch((error: unknown) => { logger.error({ err: String(error) }, 'worker stopped'); process.exit(1); });
}

main().catch((error: unknown) => {
  logger.error({ err: error instanceof Error ? error.message : String(error) }, 'worker failed to start');
  process.exit(1);
});
