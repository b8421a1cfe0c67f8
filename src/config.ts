// All settings come from the environment (documented in docs/configuration.md). Read once.
import path from 'node:path';

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function str(name: string, fallback: string): string {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? fallback : raw;
}

export const PROJECT_ROOT = path.resolve(__dirname, '..');
export const DATA_DIR = str('DATA_DIR', path.join(PROJECT_ROOT, '.data'));

export interface Config {
  port: number;
  publicBaseUrl: string;
  /** `mysql://...` for MySQL/MariaDB, or `sqlite:<file>` for the embedded default. */
  databaseUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  taskQueue: string;
  sandboxUrl: string;
  sandboxPort: number;
  sandboxNotifySecret: string;
  /** Live payments and payouts need a live provider; without one live creates are not provisioned. */
  liveProviderUrl: string | null;
  vaultKeyHex: string;
  logLevel: string;
  paymentActionTtlSeconds: number;
  sandboxSettleMs: number;
  /** How long a synchronous create waits on its workflow before answering 503. */
  workflowUpdateTimeoutMs: number;
  idempotencyRetentionSeconds: number;
  shapeBIdempotencyTtlSeconds: number;
  idempotencyLeaseMs: number;
  refundWindowSeconds: number;
  maxBodyBytes: number;
  /** A webhook attempt that has no answer after this counts as failed (CONTRACT 10: 10 s). */
  webhookAttemptTimeoutMs: number;
  /** First retry delay of a failed webhook; it doubles up to an hour, for up to 3 days. */
  webhookInitialRetrySeconds: number;
  /** How long a worker's relay owns an event's first attempt before another worker's sweeper takes it over. */
  webhookRelayLeaseSeconds: number;
  webhookRelaySweepSeconds: number;
  /** How often each worker forgets CVCs older than any authorization could need (`cvcMaxAgeSeconds`). */
  vaultSweepSeconds: number;
  /** The service's own limit per API key (token bucket): sustained rate and burst. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /** Bounds of the API's HTTP transport (docs/configuration.md, "HTTP limits"). */
  http: HttpLimits;
}

export interface HttpLimits {
  /** The request line and headers must arrive within this (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** A body must arrive within this after its headers; Node's `requestTimeout` is the two added. */
  bodyTimeoutMs: number;
  /** Request line and headers together, in bytes (Node's `maxHeaderSize`). */
  maxHeaderBytes: number;
  maxHeaders: number;
  /** Open connections per API process; more are closed as they arrive. */
  maxConnections: number;
}

/** A positive integer: a zero would switch the bound off in Node. */
function bound(name: string, fallback: number): number {
  const value = int(name, fallback);
  if (value === 0) throw new Error(`${name} must be positive`);
  return value;
}

export function loadConfig(): Config {
  const port = int('PORT', 3000);
  const sandboxPort = int('SANDBOX_PORT', 3100);
  return {
    port,
    publicBaseUrl: str('PUBLIC_BASE_URL', `http://localhost:${port}`).replace(/\/$/, ''),
    databaseUrl: str('DATABASE_URL', `sqlite:${path.join(DATA_DIR, 'payments.sqlite')}`),
    temporalAddress: str('TEMPORAL_ADDRESS', '127.0.0.1:7233'),
    temporalNamespace: str('TEMPORAL_NAMESPACE', 'default'),
    taskQueue: str('TEMPORAL_TASK_QUEUE', 'payments'),
    sandboxUrl: str('SANDBOX_URL', `http://127.0.0.1:${sandboxPort}`).replace(/\/$/, ''),
    sandboxPort,
    sandboxNotifySecret: str('SANDBOX_NOTIFY_SECRET', 'sandbox-dev-secret'),
    liveProviderUrl: process.env.LIVE_PROVIDER_URL || null,
    // A fixed development key keeps `npm start` zero-configuration; production must set its own.
    vaultKeyHex: str('VAULT_KEY', '0'.repeat(64)),
    logLevel: str('LOG_LEVEL', 'info'),
    paymentActionTtlSeconds: int('PAYMENT_ACTION_TTL_SECONDS', 900),
    sandboxSettleMs: int('SANDBOX_SETTLE_MS', 1000),
    workflowUpdateTimeoutMs: int('WORKFLOW_UPDATE_TIMEOUT_MS', 25000),
    idempotencyRetentionSeconds: int('IDEMPOTENCY_RETENTION_SECONDS', 30 * 24 * 3600),
    shapeBIdempotencyTtlSeconds: int('SHAPE_B_IDEMPOTENCY_TTL_SECONDS', 24 * 3600),
    idempotencyLeaseMs: int('IDEMPOTENCY_LEASE_MS', 30000),
    refundWindowSeconds: int('REFUND_WINDOW_SECONDS', 180 * 24 * 3600),
    maxBodyBytes: 64 * 1024,
    webhookAttemptTimeoutMs: int('WEBHOOK_ATTEMPT_TIMEOUT_MS', 10_000),
    webhookInitialRetrySeconds: int('WEBHOOK_INITIAL_RETRY_SECONDS', 5),
    webhookRelayLeaseSeconds: int('WEBHOOK_RELAY_LEASE_SECONDS', 30),
    webhookRelaySweepSeconds: int('WEBHOOK_RELAY_SWEEP_SECONDS', 5),
    vaultSweepSeconds: int('VAULT_SWEEP_SECONDS', 60),
    rateLimitPerSecond: int('RATE_LIMIT_PER_SECOND', 100),
    rateLimitBurst: int('RATE_LIMIT_BURST', 200),
    http: {
      headersTimeoutMs: bound('HTTP_HEADERS_TIMEOUT_MS', 10_000),
      bodyTimeoutMs: bound('HTTP_BODY_TIMEOUT_MS', 10_000),
      maxHeaderBytes: bound('HTTP_MAX_HEADER_BYTES', 16 * 1024),
      maxHeaders: bound('HTTP_MAX_HEADERS', 100),
      maxConnections: bound('HTTP_MAX_CONNECTIONS', 1024),
    },
  };
}

let cached: Config | undefined;
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}
