// `npm run api`: the HTTP API alone (the worker, Temporal and the database run elsewhere).
import { TEMPORAL_SECRETS, assertSecrets, config } from '../config';
import { processLogger } from '../observability/logger';
import { startApi } from './server';

const logger = processLogger('api');

async function main(): Promise<void> {
  assertSecrets(['VAULT_KEY', 'SANDBOX_NOTIFY_SECRET', ...TEMPORAL_SECRETS]);
  const cfg = config();
  const api = await startApi(cfg, logger);
  // With API_METRICS_PORT set (always in production), /metrics is served there only (the public port answers 404).
  logger.info({ url: api.url, metricsPort: api.metricsPort }, 'API listening');
  // SIGTERM and SIGINT stop gracefully (CONTRACT 16); a second signal does not cut it short, the
  // shutdown's own time-out does, and this guard if closing the clients hangs.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'API stopping');
    setTimeout(() => process.exit(1), cfg.apiShutdownTimeoutMs + 3_000).unref();
    api.shutdown().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  logger.error({ err: error instanceof Error ? error.message : String(error) }, 'API failed to start');
  process.exit(1);
});
