// `npm run api`: the HTTP API alone (the worker, Temporal and the database run elsewhere).
import { TEMPORAL_SECRETS, assertSecrets, config } from '../config';
import { createLogger } from '../observability/logger';
import { serveMetrics } from '../observability/metrics-server';
import { startApi } from './server';

const logger = createLogger('api', config().logLevel);

async function main(): Promise<void> {
  assertSecrets(['VAULT_KEY', 'SANDBOX_NOTIFY_SECRET', ...TEMPORAL_SECRETS]);
  const cfg = config();
  const api = await startApi(cfg, logger);
  // With API_METRICS_PORT set, /metrics is served there only (the public port answers 404).
  const metrics = cfg.apiMetricsPort === null ? null : await serveMetrics(api.deps.metrics.registry, cfg.apiMetricsPort);
  logger.info({ url: api.url, metricsPort: metrics?.port ?? null }, 'API listening');
  const stop = () => { Promise.all([api.close(), metrics?.close()]).then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  logger.error({ err: error instanceof Error ? error.message : String(error) }, 'API failed to start');
  process.exit(1);
});
