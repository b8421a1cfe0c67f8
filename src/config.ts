// All settings come from the environment (documented in docs/configuration.md), read here and
// nowhere else (test/unit/config-only.test.ts). Read once.
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

// Development values, so that `npm start` needs no configuration; assertSecrets keeps them out of
// production.
const DEV_VAULT_KEY = '0'.repeat(64);
const DEV_NOTIFY_SECRET = 'sandbox-dev-secret';
const DEV_CODEC_KEYS = `dev:${'de'.repeat(32)}`;

export const PROJECT_ROOT = path.resolve(__dirname, '..');
export const DATA_DIR = str('DATA_DIR', path.join(PROJECT_ROOT, '.data'));

export interface Config {
  port: number;
  publicBaseUrl: string;
  /** Whether PUBLIC_BASE_URL was given; if not, an API on port 0 (tests) points it at the port it bound. */
  publicBaseUrlSet: boolean;
  /** Whether to trust `X-Forwarded-*` from a reverse proxy (TRUST_PROXY=1). */
  trustProxy: boolean;
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
  /**
   * How long a Payout submission waits for the provider's first answer before the API answers
   * `201 PENDING`; the submission goes on in the background under the same provider key.
   */
  payoutAnswerWithinMs: number;
  idempotencyRetentionSeconds: number;
  shapeBIdempotencyTtlSeconds: number;
  idempotencyLeaseMs: number;
  refundWindowSeconds: number;
  /** A Payment's workflow continues as new after this many refunds in one run (history stays bounded). */
  refundsPerRun: number;
  maxBodyBytes: number;
  /** A webhook attempt that has no answer after this counts as failed (docs/webhooks.md: 10 s). */
  webhookAttemptTimeoutMs: number;
  /** First retry delay of a failed webhook; it doubles up to an hour, for up to 3 days. */
  webhookInitialRetrySeconds: number;
  /** How long a worker's relay owns an event's first attempt before another worker's sweeper takes it over. */
  webhookRelayLeaseSeconds: number;
  webhookRelaySweepSeconds: number;
  /** How often each worker forgets CVCs older than any authorization could need (`cvcMaxAgeSeconds`). */
  vaultSweepSeconds: number;
  /** Events (and their deliveries and attempts) are kept this many days, never fewer than 30, then purged. */
  eventRetentionDays: number;
  /** How often each API process purges events past their retention. */
  eventPurgeIntervalSeconds: number;
  /** The service's own limit per API key (token bucket): sustained rate and burst. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /** Where the API serves `/metrics`; null serves it on the public port. */
  apiMetricsPort: number | null;
  /** A worker's own `/metrics` (0 picks a free port). */
  workerMetricsPort: number;
  /** Sticky workflow cache size of a worker. */
  workerMaxCachedWorkflows: number;
  /** The Temporal SDK runtime's worker metrics, when set. */
  temporalMetricsPort: number | null;
  /** Web UI and HTTP API ports of the Temporal dev server that `npm start` runs. */
  temporalUiPort: number;
  temporalHttpPort: number;
  /** Bearer credential of the sandbox's control endpoints (`/_sandbox/*`); null leaves them off. */
  sandboxControlToken: string | null;
  /** Whether test-mode webhooks and callbacks may go to loopback addresses (local development). */
  webhookAllowLoopback: boolean;
  /** Bounds of the API's HTTP transport (docs/configuration.md, "HTTP limits"). */
  http: HttpLimits;
  /** Keys of the payload codec every Temporal client and worker uses; null (`TEMPORAL_CODEC=off`) sends plaintext. */
  temporalCodec: CodecKeyRing | null;
  codecServer: CodecServerSettings;
}

/** AES-256-GCM keys of the Temporal payload codec: new payloads use the current one, any of them decodes. */
export interface CodecKeyRing {
  currentKeyId: string;
  /** Key id -> key, 64 hex characters. */
  keys: Record<string, string>;
}

/** The codec server operators point the Temporal UI and CLI at (`npm run codec-server`, `npm start`). */
export interface CodecServerSettings {
  host: string;
  port: number;
  /** Origins (the Temporal UI's) whose pages may call it; every other origin gets no CORS answer. */
  corsOrigins: string[];
  /** The operator credential; required on every request when set, and to bind anything but loopback. */
  authToken: string | null;
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
  const operations = operationsSettings();
  return {
    port,
    publicBaseUrl: str('PUBLIC_BASE_URL', `http://localhost:${port}`).replace(/\/$/, ''),
    publicBaseUrlSet: Boolean(process.env.PUBLIC_BASE_URL),
    trustProxy: process.env.TRUST_PROXY === '1',
    databaseUrl: str('DATABASE_URL', `sqlite:${path.join(DATA_DIR, 'payments.sqlite')}`),
    temporalAddress: str('TEMPORAL_ADDRESS', '127.0.0.1:7233'),
    temporalNamespace: str('TEMPORAL_NAMESPACE', 'default'),
    taskQueue: str('TEMPORAL_TASK_QUEUE', 'payments'),
    sandboxUrl: str('SANDBOX_URL', `http://127.0.0.1:${sandboxPort}`).replace(/\/$/, ''),
    sandboxPort,
    sandboxNotifySecret: sandboxNotifySecret(),
    liveProviderUrl: process.env.LIVE_PROVIDER_URL || null,
    vaultKeyHex: str('VAULT_KEY', DEV_VAULT_KEY),
    logLevel: str('LOG_LEVEL', 'info'),
    paymentActionTtlSeconds: int('PAYMENT_ACTION_TTL_SECONDS', 900),
    sandboxSettleMs: int('SANDBOX_SETTLE_MS', 1000),
    workflowUpdateTimeoutMs: int('WORKFLOW_UPDATE_TIMEOUT_MS', 25000),
    // It runs inside one workflow task (a local activity), so it stays well under the task's 10 s time-out.
    payoutAnswerWithinMs: boundedInt('PAYOUT_ANSWER_WITHIN_MS', 1200, 100, 5000),
    idempotencyRetentionSeconds: int('IDEMPOTENCY_RETENTION_SECONDS', 30 * 24 * 3600),
    shapeBIdempotencyTtlSeconds: int('SHAPE_B_IDEMPOTENCY_TTL_SECONDS', 24 * 3600),
    idempotencyLeaseMs: int('IDEMPOTENCY_LEASE_MS', 30000),
    refundWindowSeconds: int('REFUND_WINDOW_SECONDS', 180 * 24 * 3600),
    refundsPerRun: int('PAYMENT_REFUNDS_PER_RUN', 500),
    maxBodyBytes: 64 * 1024,
    webhookAttemptTimeoutMs: int('WEBHOOK_ATTEMPT_TIMEOUT_MS', 10_000),
    webhookInitialRetrySeconds: int('WEBHOOK_INITIAL_RETRY_SECONDS', 5),
    webhookRelayLeaseSeconds: int('WEBHOOK_RELAY_LEASE_SECONDS', 30),
    webhookRelaySweepSeconds: int('WEBHOOK_RELAY_SWEEP_SECONDS', 5),
    vaultSweepSeconds: int('VAULT_SWEEP_SECONDS', 60),
    eventRetentionDays: eventRetentionDays(),
    eventPurgeIntervalSeconds: bound('EVENT_PURGE_INTERVAL_SECONDS', 3600),
    rateLimitPerSecond: int('RATE_LIMIT_PER_SECOND', 100),
    rateLimitBurst: int('RATE_LIMIT_BURST', 200),
    http: {
      headersTimeoutMs: bound('HTTP_HEADERS_TIMEOUT_MS', 10_000),
      bodyTimeoutMs: bound('HTTP_BODY_TIMEOUT_MS', 10_000),
      maxHeaderBytes: bound('HTTP_MAX_HEADER_BYTES', 16 * 1024),
      maxHeaders: bound('HTTP_MAX_HEADERS', 100),
      maxConnections: bound('HTTP_MAX_CONNECTIONS', 1024),
    },
    ...operations,
    ...codecSettings(operations.temporalUiPort),
  };
}

/** Merchants are promised 30 days: a shorter setting is refused at startup rather than silently raised. */
function eventRetentionDays(): number {
  const days = int('EVENT_RETENTION_DAYS', 30);
  if (days < 30) throw new Error(`EVENT_RETENTION_DAYS must be at least 30 (events are kept at least 30 days), got ${days}`);
  return days;
}

function optionalInt(name: string): number | null {
  return process.env[name] ? int(name, 0) : null;
}

function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'on'].includes(raw)) return true;
  if (['0', 'false', 'off'].includes(raw)) return false;
  throw new Error(`${name} must be 1 or 0 (true/false, on/off), got "${raw}"`);
}

/** The port of a `host:port` address such as TEMPORAL_ADDRESS. */
export function portOf(address: string): number {
  return Number(address.split(':').pop());
}

function operationsSettings() {
  const temporalPort = portOf(str('TEMPORAL_ADDRESS', '127.0.0.1:7233'));
  return {
    apiMetricsPort: optionalInt('API_METRICS_PORT'),
    workerMetricsPort: int('WORKER_METRICS_PORT', 9464),
    workerMaxCachedWorkflows: Number(process.env.WORKER_MAX_CACHED_WORKFLOWS || 2000),
    temporalMetricsPort: optionalInt('TEMPORAL_METRICS_PORT'),
    temporalUiPort: int('TEMPORAL_UI_PORT', temporalPort + 1000),
    // Temporal's usual HTTP API port; the dev server would otherwise pick a random one.
    temporalHttpPort: int('TEMPORAL_HTTP_PORT', temporalPort + 10),
    sandboxControlToken: sandboxControlToken(),
    // Off by default in production: there loopback is the servers' own, not a developer's machine.
    webhookAllowLoopback: bool('WEBHOOK_ALLOW_LOOPBACK', str('NODE_ENV', 'development') !== 'production'),
  };
}

const KEY_RING_ENTRY = /^([A-Za-z0-9._-]{1,64}):([0-9a-fA-F]{64})$/;

/** `TEMPORAL_CODEC_KEYS` (`id:<64 hex>,id:<64 hex>`) and `TEMPORAL_CODEC_KEY_ID` as a key ring. */
export function parseKeyRing(keysText: string, currentKeyId: string | undefined): CodecKeyRing {
  const keys: Record<string, string> = {};
  for (const entry of keysText.split(',').map((e) => e.trim()).filter(Boolean)) {
    const match = KEY_RING_ENTRY.exec(entry);
    if (!match) throw new Error(`TEMPORAL_CODEC_KEYS: "${entry.replace(/:.*/, ':...')}" is not <key id>:<64 hex characters>`);
    if (match[1]! in keys) throw new Error(`TEMPORAL_CODEC_KEYS names key "${match[1]}" twice`);
    keys[match[1]!] = match[2]!.toLowerCase();
  }
  const ids = Object.keys(keys);
  if (!ids.length) throw new Error('TEMPORAL_CODEC_KEYS holds no key');
  const current = currentKeyId || (ids.length === 1 ? ids[0]! : undefined);
  if (current === undefined) throw new Error('TEMPORAL_CODEC_KEY_ID must name the current key when TEMPORAL_CODEC_KEYS holds several');
  if (!(current in keys)) throw new Error(`TEMPORAL_CODEC_KEY_ID "${current}" is not one of the keys in TEMPORAL_CODEC_KEYS (${ids.join(', ')})`);
  return { currentKeyId: current, keys };
}

function codecSettings(uiPort: number): Pick<Config, 'temporalCodec' | 'codecServer'> {
  return {
    // Off only for measurements (the bench); production refuses it (assertSecrets).
    temporalCodec: bool('TEMPORAL_CODEC', true) ? parseKeyRing(str('TEMPORAL_CODEC_KEYS', DEV_CODEC_KEYS), str('TEMPORAL_CODEC_KEY_ID', '')) : null,
    codecServer: {
      host: str('CODEC_HOST', '127.0.0.1'),
      port: int('CODEC_PORT', 3200),
      corsOrigins: str('CODEC_CORS_ORIGINS', `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`).split(',').map((o) => o.trim().replace(/\/$/, '')).filter(Boolean),
      authToken: str('CODEC_AUTH_TOKEN', '') || null,
    },
  };
}

function sandboxNotifySecret(): string {
  return str('SANDBOX_NOTIFY_SECRET', DEV_NOTIFY_SECRET);
}

function sandboxControlToken(): string | null {
  return process.env.SANDBOX_CONTROL_TOKEN || null;
}

/** MySQL connection pool size of each process's DataSource (src/db/data-source.ts). */
export function databasePoolSize(): number {
  return Number(process.env.DATABASE_POOL_SIZE || 20);
}

/** Which services `npm start` runs itself: those whose address is not given. */
export function devServicesToStart(): { temporal: boolean; sandbox: boolean } {
  return { temporal: !process.env.TEMPORAL_ADDRESS, sandbox: !process.env.SANDBOX_URL };
}

function boundedInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}`);
  }
  return value;
}

/** Settings of the sandbox acquirer as its own process (`npm run sandbox`; src/provider/sandbox/README.md). */
export interface SandboxConfig {
  port: number;
  settleMs: number;
  /** Origin of its 3D Secure pages as a shopper's browser reaches them; unset: its own URL. */
  publicUrl: string | undefined;
  notifySecret: string;
  controlToken: string | null;
}

export function sandboxConfig(): SandboxConfig {
  return {
    port: boundedInt('SANDBOX_PORT', 3100, 0, 65535),
    settleMs: boundedInt('SANDBOX_SETTLE_MS', 1000, 0, 24 * 60 * 60 * 1000),
    publicUrl: process.env.SANDBOX_PUBLIC_URL || undefined,
    notifySecret: sandboxNotifySecret(),
    controlToken: sandboxControlToken(),
  };
}

// Secrets. With NODE_ENV=production or a live provider configured, a process refuses to start on a
// secret it uses that is missing or a development value: the defaults below are published, and a
// provider notification signed with the published notify secret would be accepted.
const MIN_SECRET_LENGTH = 16;

type SecretRule = (value: string, env: NodeJS.ProcessEnv) => string | null;

function sharedSecret(value: string): string | null {
  if (value === DEV_NOTIFY_SECRET || /^change-?me/i.test(value)) return 'is a published development value';
  return value.length < MIN_SECRET_LENGTH ? `is shorter than ${MIN_SECRET_LENGTH} characters` : null;
}

export type SecretName = 'VAULT_KEY' | 'SANDBOX_NOTIFY_SECRET' | 'SANDBOX_CONTROL_TOKEN' | 'TEMPORAL_CODEC_KEYS' | 'TEMPORAL_CODEC' | 'CODEC_AUTH_TOKEN';

/** What every process that talks to Temporal checks: its payloads are encrypted, with real keys. */
export const TEMPORAL_SECRETS = ['TEMPORAL_CODEC_KEYS', 'TEMPORAL_CODEC'] as const satisfies readonly SecretName[];

/** The development keys (zeros, the codec's `de...`) and the repository's test and bench keys are one byte repeated. */
const isDevelopmentKey = (hex: string) => /^(..)\1{31}$/.test(hex.toLowerCase());

const SECRETS: Record<SecretName, { rule: SecretRule; optional?: true }> = {
  VAULT_KEY: {
    rule: (value) => {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return 'is not 64 hex characters';
      if (isDevelopmentKey(value)) return 'is a development key (one byte repeated)';
      return null;
    },
  },
  SANDBOX_NOTIFY_SECRET: { rule: sharedSecret },
  // Unset leaves the sandbox's control endpoints off, which is safe.
  SANDBOX_CONTROL_TOKEN: { rule: sharedSecret, optional: true },
  TEMPORAL_CODEC_KEYS: {
    rule: (value, env) => {
      let ring: CodecKeyRing;
      try {
        ring = parseKeyRing(value, env.TEMPORAL_CODEC_KEY_ID);
      } catch (error) {
        return `is not a valid key ring (${(error as Error).message})`;
      }
      const weak = Object.entries(ring.keys).filter(([, hex]) => isDevelopmentKey(hex)).map(([id]) => id);
      return weak.length ? `holds a development key (one byte repeated): ${weak.join(', ')}` : null;
    },
  },
  // Unset means on; off would send every payload to Temporal in plaintext.
  TEMPORAL_CODEC: { rule: (value) => (['0', 'false', 'off'].includes(value) ? 'is off: payloads would reach Temporal in plaintext' : null), optional: true },
  // Unset keeps the codec server on loopback (it refuses any other address without it).
  CODEC_AUTH_TOKEN: { rule: sharedSecret, optional: true },
};

/** Whether secrets must be real: `NODE_ENV=production`, or a live provider configured. */
export function secretsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NODE_ENV === 'production' || Boolean(env.LIVE_PROVIDER_URL);
}

/** What is wrong with the named secrets, one sentence per variable; empty when they may be used. */
export function secretProblems(names: readonly SecretName[], env: NodeJS.ProcessEnv = process.env): string[] {
  if (!secretsRequired(env)) return [];
  return names.flatMap((name) => {
    const value = env[name];
    const { rule, optional } = SECRETS[name];
    if (value === undefined || value === '') return optional ? [] : [`${name} is not set`];
    const problem = rule(value, env);
    return problem ? [`${name} ${problem}`] : [];
  });
}

/** Throws, naming each variable, unless the named secrets may be used (entry points call this first). */
export function assertSecrets(names: readonly SecretName[], env: NodeJS.ProcessEnv = process.env): void {
  const problems = secretProblems(names, env);
  if (problems.length) {
    throw new Error(`refusing to start with development secrets (NODE_ENV=production or LIVE_PROVIDER_URL set): ${problems.join('; ')}. See docs/configuration.md, "Secrets".`);
  }
}

let cached: Config | undefined;
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}
