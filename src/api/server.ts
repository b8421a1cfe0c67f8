// Builds the API's dependencies and serves it; used by `npm run api`, `npm start` and the tests.
import type { Config } from '../config';
import { openDataSource } from '../db/data-source';
import { createLogger, type Logger } from '../observability/logger';
import { ApiMetrics } from '../observability/metrics';
import { serveOperations, type OperationsServer } from '../observability/metrics-server';
import { connectTemporal } from '../temporal/client';
import { CardVaultStore } from '../vault/card-vault';
import { SecretBox } from '../vault/crypto';
import { RequestLimits } from '../web/request-limits';
import { createHttpServer, listen } from '../web/transport';
import { createApp } from './app';
import type { ApiLifecycle } from './context';
import type { Deps } from '../services/context';
import { errorBody } from './errors';

export interface RunningApi {
  url: string;
  deps: Deps;
  /** Where `/metrics` is served when it has a port of its own (API_METRICS_PORT), else null. */
  metricsPort: number | null;
  /**
   * The graceful stop of SIGTERM (CONTRACT 16): `/v1/health` answers 503 at once, connections are
   * still taken for API_DRAIN_DELAY_MS (the balancer's health checks notice meanwhile), every answer
   * from then on says `Connection: close`, requests in flight finish, and whatever is still open
   * after API_SHUTDOWN_TIMEOUT_MS is closed.
   */
  shutdown(): Promise<void>;
  /** Stops at once: open connections are closed (tests, `npm start`). */
  close(): Promise<void>;
}

export async function startApi(config: Config, logger: Logger = createLogger('api', config.logLevel)): Promise<RunningApi> {
  const dataSource = await openDataSource(config.databaseUrl);
  const temporal = await connectTemporal(config);
  const secretBox = new SecretBox(config.vaultKeyHex);
  const metrics = new ApiMetrics();
  const rateLimiter = new RequestLimits({
    perKey: { ratePerSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst },
    perAddress: { ratePerSecond: config.rateLimitPerAddressPerSecond, burst: config.rateLimitAddressBurst },
    redisUrl: config.redisUrl,
    redisPrefix: config.redisKeyPrefix,
    redisCommandTimeoutMs: config.redisCommandTimeoutMs,
    onFallback: () => metrics.rateLimitStoreFallbacks.inc(),
    onStoreChange: (up) => {
      metrics.rateLimitStoreUp.set(up ? 1 : 0);
      if (up) logger.info({}, 'rate limit store answers again: limits are shared across replicas');
      else logger.warn({}, 'rate limit store unreachable: each API process limits on its own until it answers');
    },
  });
  if (config.redisUrl) metrics.rateLimitStoreUp.set(1);
  const deps: Deps = {
    config, dataSource, temporal, secretBox, logger, metrics, rateLimiter,
    vault: new CardVaultStore(dataSource, secretBox),
  };
  const lifecycle: ApiLifecycle = { draining: false };
  const app = createApp(deps, lifecycle);
  const server = createHttpServer(app.callback(), {
    limits: config.http,
    logger,
    behindProxy: config.trustProxy,
    refusalBody: (error, requestId) => errorBody(error, { shape: 'A', requestId }, config.publicBaseUrl),
  });
  const port = await listen(server, config.port, '0.0.0.0');
  // Port 0 (tests) binds a free port; links we hand out must point at it.
  if (config.port === 0 && !config.publicBaseUrlSet) config.publicBaseUrl = `http://127.0.0.1:${port}`;
  const operations: OperationsServer | null = config.apiMetricsPort === null ? null : await serveOperations({ registry: deps.metrics.registry }, {
    host: config.apiMetricsHost, port: config.apiMetricsPort, limits: config.http, logger,
  });

  const release = async () => {
    await operations?.close();
    await rateLimiter.close();
    await temporal.connection.close();
    await dataSource.destroy();
  };
  let stopping: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    metricsPort: operations?.port ?? null,
    shutdown() {
      stopping ??= (async () => {
        lifecycle.draining = true;
        logger.info({ drain_delay_ms: config.apiDrainDelayMs, timeout_ms: config.apiShutdownTimeoutMs }, 'API draining');
        const cut = setTimeout(() => {
          logger.warn({}, 'API shutdown timed out: closing the connections still open');
          server.closeAllConnections();
        }, config.apiShutdownTimeoutMs);
        await new Promise((resolve) => setTimeout(resolve, Math.min(config.apiDrainDelayMs, config.apiShutdownTimeoutMs)));
        // No new connections; idle ones close now, busy ones once their answer (Connection: close) is out.
        await new Promise<void>((resolve) => server.close(() => resolve()));
        clearTimeout(cut);
        await release();
        logger.info({}, 'API stopped');
      })();
      return stopping;
    },
    close() {
      stopping ??= (async () => {
        lifecycle.draining = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await release();
      })();
      return stopping;
    },
  };
}
