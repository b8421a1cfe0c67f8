// Builds the API's dependencies and serves it; used by `npm run api`, `npm start` and the tests.
import type { Config } from '../config';
import { openDataSource } from '../db/data-source';
import { createLogger, type Logger } from '../observability/logger';
import { ApiMetrics } from '../observability/metrics';
import { connectTemporal } from '../temporal/client';
import { CardVaultStore } from '../vault/card-vault';
import { SecretBox } from '../vault/crypto';
import { TokenBuckets } from '../domain/rate-limit';
import { every } from '../background/every';
import { createApp } from './app';
import type { Deps } from '../services/context';
import { purgeExpiredEvents } from '../services/events';
import { IdempotencyStore } from '../services/idempotency';
import { createHttpServer } from './transport';

export interface RunningApi {
  url: string;
  deps: Deps;
  close(): Promise<void>;
}

export async function startApi(config: Config, logger: Logger = createLogger('api', config.logLevel)): Promise<RunningApi> {
  const dataSource = await openDataSource(config.databaseUrl);
  const temporal = await connectTemporal(config);
  const secretBox = new SecretBox(config.vaultKeyHex);
  const deps: Deps = {
    config, dataSource, temporal, secretBox, logger,
    vault: new CardVaultStore(dataSource, secretBox),
    metrics: new ApiMetrics(),
    rateLimiter: new TokenBuckets({ ratePerSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst }),
  };
  const app = createApp(deps);
  const server = createHttpServer(app.callback(), config.http, config.publicBaseUrl, logger);
  await new Promise<void>((resolve) => server.listen(config.port, '0.0.0.0', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Port 0 (tests) binds a free port; links we hand out must point at it.
  if (config.port === 0 && !config.publicBaseUrlSet) config.publicBaseUrl = `http://127.0.0.1:${port}`;
  // Idempotency records past their retention are purged hourly.
  const purge = every(3600_000, () => new IdempotencyStore(dataSource).purgeExpired(), (error) => logger.warn({ err: String(error) }, 'idempotency purge failed'));
  // Events past their retention go too (docs/events.md, "Retention").
  const eventPurge = every(config.eventPurgeIntervalSeconds * 1000, () => purgeExpiredEvents(dataSource, config.eventRetentionDays), (error) => logger.warn({ err: String(error) }, 'event purge failed'));
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    async close() {
      purge.stop();
      eventPurge.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await temporal.connection.close();
      await dataSource.destroy();
    },
  };
}
