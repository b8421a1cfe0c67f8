// `npm run worker`: one worker process. Stateless: run as many as the load needs.
import { TEMPORAL_SECRETS, assertSecrets, config } from '../src/config';
import { createLogger } from '../src/observability/logger';
import { startWorker } from './worker';

const logger = createLogger('worker', config().logLevel);

async function main(): Promise<void> {
  assertSecrets(['VAULT_KEY', ...TEMPORAL_SECRETS]);
  const running = await startWorker(config());
  logger.info({ taskQueue: config().taskQueue, metricsPort: running.metricsPort }, 'worker running');
  const stop = () => { running.shutdown().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  running.run.catch((error: unknown) => { logger.error({ err: String(error) }, 'worker stopped'); process.exit(1); });
}

main().catch((error: unknown) => {
  logger.error({ err: error instanceof Error ? error.message : String(error) }, 'worker failed to start');
  process.exit(1);
});
