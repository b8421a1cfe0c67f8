// All settings come from the environment, read here and in the sandbox's own settings
// (src/provider/sandbox/config.ts) and nowhere else (test/unit/config-only.test.ts). Each setting is
// declared once in SETTINGS: its variable, values, default and meaning. zod parses it, a bad value
// stops the process at start with the variable's name, and `npm run docs:config` writes the tables
// of docs/configuration.md from the same declarations (test/unit/config-docs.test.ts keeps them equal).
//
// Adding a setting is one line in SETTINGS: `config().<key>` then has it, typed, and the docs list it.
import path from 'node:path';
import { z } from 'zod';

type Env = Readonly<Record<string, string | undefined>>;

// ---------------------------------------------------------------------------------------------
// How a setting is declared.

/** What docs/configuration.md says about a setting. */
export interface SettingInfo {
  /** The environment variable. */
  env: string;
  /** What values it takes (the table's "Values" column). */
  values: string;
  /** The table's "Meaning" column. */
  doc: string;
  /** The "Default" column when the default follows other settings; otherwise it shows the declared default. */
  defaultDoc?: string;
  /** A secret's value is never repeated in an error. */
  secret?: true;
}

type Described = Omit<SettingInfo, 'values'>;

/** A declared setting: parses the variable's text (undefined when unset or empty). */
export type Setting<T = unknown> = z.ZodType<T, string | undefined>;
/** Settings, possibly grouped (`http: { ... }` gives `config().http`). */
export interface SettingGroup { readonly [key: string]: Setting | SettingGroup }
export type Parsed<G extends SettingGroup> = {
  -readonly [K in keyof G]: G[K] extends Setting ? z.output<G[K]> : G[K] extends SettingGroup ? Parsed<G[K]> : never
};

const INFO = z.registry<SettingInfo>();

export function settingInfo(setting: Setting): SettingInfo {
  const info = INFO.get(setting);
  if (!info) throw new Error('not a declared setting');
  return info;
}

function isSetting(item: Setting | SettingGroup): item is Setting {
  return INFO.has(item as Setting);
}

/** A declaration with a default gives that value when the variable is unset; without one, null. */
function declare<T>(schema: z.ZodType<T, string>, values: string, described: Described & { default?: T }): Setting<T> {
  const { default: fallback, ...info } = described;
  const declared = fallback === undefined ? schema.optional().transform((value) => value ?? null) : schema.default(fallback as never);
  return (declared as unknown as Setting<T>).register(INFO, { values, ...info });
}

type Declaration<T> = Described & { default: T };
type Optional = Described & { default?: undefined };

/** The spellings every boolean setting accepts, in any case. */
export const BOOLEAN_SPELLINGS = { true: ['1', 'true', 'yes', 'on'], false: ['0', 'false', 'no', 'off'] } as const;
const BOOLEAN_VALUES = `${BOOLEAN_SPELLINGS.true.join(', ')} / ${BOOLEAN_SPELLINGS.false.join(', ')}`;
const booleanText = z.stringbool({
  truthy: [...BOOLEAN_SPELLINGS.true], falsy: [...BOOLEAN_SPELLINGS.false], case: 'insensitive', error: `must be one of ${BOOLEAN_VALUES}`,
});

/** Reads a boolean setting's text; undefined when it is none of the spellings. */
export function parseBoolean(raw: string): boolean | undefined {
  const result = booleanText.safeParse(raw);
  return result.success ? result.data : undefined;
}

export function bool(d: Declaration<boolean>): Setting<boolean>;
export function bool(d: Optional): Setting<boolean | null>;
export function bool(d: Described & { default?: boolean }): Setting<boolean | null> {
  return declare(booleanText, 'boolean', d);
}

interface Bounds { min?: number; max?: number }

export function integer(d: Declaration<number> & Bounds): Setting<number>;
export function integer(d: Optional & Bounds): Setting<number | null>;
export function integer(d: Described & Bounds & { default?: number }): Setting<number | null> {
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = d;
  const values = max === Number.MAX_SAFE_INTEGER ? `integer, at least ${min}` : `integer from ${min} to ${max}`;
  const error = `must be an ${values}`;
  const schema = z.string().trim().regex(/^-?\d+$/, { error }).transform(Number).pipe(z.number().min(min, { error }).max(max, { error }));
  return declare(schema, values, d);
}

export function port(d: Declaration<number>): Setting<number>;
export function port(d: Optional): Setting<number | null>;
export function port(d: Described & { default?: number }): Setting<number | null> {
  const error = 'must be a port number (0 to 65535)';
  const schema = z.string().trim().regex(/^\d{1,5}$/, { error }).transform(Number).pipe(z.number().max(65535, { error }));
  return declare(schema, 'port', d);
}

/** Text, matching `pattern` when given; `values` says what it takes. */
interface TextShape { pattern?: RegExp; values?: string }

export function text(d: Declaration<string> & TextShape): Setting<string>;
export function text(d: Optional & TextShape): Setting<string | null>;
export function text(d: Described & TextShape & { default?: string }): Setting<string | null> {
  const { pattern = /./, values = 'text', ...described } = d;
  return declare(z.string().regex(pattern, { error: `must be ${values}` }), values, described);
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).transform((url) => url.replace(/\/$/, ''));

/** An http(s) URL, without its trailing slash. */
export function url(d: Declaration<string>): Setting<string>;
export function url(d: Optional): Setting<string | null>;
export function url(d: Described & { default?: string }): Setting<string | null> {
  return declare(httpUrl, 'http(s) URL', d);
}

/** Comma-separated http(s) origins, without trailing slashes. */
export function origins(d: Optional): Setting<string[] | null> {
  const schema = z.string().transform((list) => list.split(',').map((o) => o.trim()).filter(Boolean)).pipe(z.array(httpUrl));
  return declare(schema, 'comma-separated origins', d);
}

// ---------------------------------------------------------------------------------------------
// Reading and documenting declared settings.

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings: ${problems.join('; ')} (see docs/configuration.md)`);
    this.name = 'SettingsError';
  }
}

/** An empty variable counts as unset. */
function rawValue(setting: Setting, env: Env): string | undefined {
  const raw = env[settingInfo(setting).env];
  return raw === '' ? undefined : raw;
}

export function isSet(setting: Setting, env: Env): boolean {
  return rawValue(setting, env) !== undefined;
}

/** Parses every setting of the group; refuses all bad values at once, naming each variable. */
export function parseSettings<G extends SettingGroup>(group: G, env: Env = process.env): Parsed<G> {
  const problems: string[] = [];
  const walk = (items: SettingGroup): Record<string, unknown> => Object.fromEntries(Object.entries(items).map(([key, item]) => {
    if (!isSetting(item)) return [key, walk(item)];
    const raw = rawValue(item, env);
    const result = item.safeParse(raw);
    if (result.success) return [key, result.data];
    const { env: name, secret } = settingInfo(item);
    problems.push(`${name} ${result.error.issues[0]!.message}${secret ? '' : `, got "${raw}"`}`);
    return [key, undefined];
  }));
  const values = walk(group);
  if (problems.length) throw new SettingsError(problems);
  return values as Parsed<G>;
}

/** The declarations of a group, grouped ones included, in declaration order. */
export function declarations(group: SettingGroup): Setting[] {
  return Object.values(group).flatMap((item) => (isSetting(item) ? [item] : declarations(item)));
}

/** `15552000` (180 days): seconds that make whole days or hours say so. */
function shown(env: string, value: unknown): string {
  if (typeof value === 'boolean') return `\`${value ? 'on' : 'off'}\``;
  const plain = `\`${String(value)}\``;
  if (typeof value !== 'number' || !env.endsWith('_SECONDS')) return plain;
  const unit = value >= 86400 && value % 86400 === 0 ? [86400, 'day'] as const : value >= 3600 && value % 3600 === 0 ? [3600, 'hour'] as const : null;
  if (!unit) return plain;
  const count = value / unit[0];
  return `${plain} (${count} ${unit[1]}${count === 1 ? '' : 's'})`;
}

/** The Markdown table of these settings for docs/configuration.md. */
export function settingsTable(settings: readonly Setting[]): string {
  const rows = settings.map((setting) => {
    const { env, values, doc, defaultDoc } = settingInfo(setting);
    const fallback = setting.parse(undefined);
    const defaultText = defaultDoc ?? (fallback === null ? '(unset)' : shown(env, fallback));
    return `| \`${env}\` | ${values} | ${defaultText} | ${doc} |`;
  });
  return ['| Variable | Values | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

// ---------------------------------------------------------------------------------------------
// The service's settings.

// Development values, so that `npm start` needs no configuration; assertSecrets keeps them out of
// production.
const DEV_VAULT_KEY = '0'.repeat(64);
const DEV_NOTIFY_SECRET = 'sandbox-dev-secret';
const DEV_CODEC_KEYS = `dev:${'de'.repeat(32)}`;
/** How the docs mark a secret. */
export const SECRET = 'A secret: see [Secrets](#secrets).';

/** The checkout (or the image's /app): above src/, or above dist/src/ once compiled (`npm run build`). */
const ABOVE_SRC = path.resolve(__dirname, '..');
export const PROJECT_ROOT = path.basename(ABOVE_SRC) === 'dist' ? path.dirname(ABOVE_SRC) : ABOVE_SRC;
const DAY = 24 * 3600;

/** Every setting of the service's processes (API, worker, admin command, codec server, `npm start`). */
export const SETTINGS = {
  port: port({ env: 'PORT', default: 3000, doc: 'API port.' }),
  publicBaseUrl: url({ env: 'PUBLIC_BASE_URL', defaultDoc: '`http://localhost:$PORT`', doc: 'Public origin of the API, the address browsers use: hosted page links and 3DS return URLs are built from it.' }),
  internalBaseUrl: url({ env: 'INTERNAL_BASE_URL', defaultDoc: '`PUBLIC_BASE_URL`', doc: 'Where the acquirer reaches the API server to server: provider notification URLs are built from it (behind a load balancer or in a container network, the internal address of the API, e.g. `http://api-lb:3000`).' }),
  dataDir: text({ env: 'DATA_DIR', values: 'path', default: path.join(PROJECT_ROOT, '.data'), defaultDoc: '`.data`', doc: 'Where the embedded database, the dev Temporal store and logs go.' }),
  databaseUrl: text({ env: 'DATABASE_URL', pattern: /^(mysql|mariadb):\/\/|^sqlite:./, values: '`mysql://...` or `sqlite:<file>`', defaultDoc: '`sqlite:$DATA_DIR/payments.sqlite`', doc: '`mysql://user:pass@host:3306/db` for MySQL/MariaDB (production), or `sqlite:<file>` (embedded default).' }),
  databasePoolSize: integer({ env: 'DATABASE_POOL_SIZE', min: 1, max: 1000, default: 20, doc: 'MySQL connection pool size per process.' }),
  temporalAddress: text({ env: 'TEMPORAL_ADDRESS', pattern: /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/, values: '`host:port`', default: '127.0.0.1:7233', doc: 'Temporal frontend. When unset, `npm start` runs `temporal server start-dev` itself, and refuses to if something already listens on port 7233 (set this variable to use that server).' }),
  temporalNamespace: text({ env: 'TEMPORAL_NAMESPACE', default: 'default', doc: 'Temporal namespace.' }),
  taskQueue: text({ env: 'TEMPORAL_TASK_QUEUE', default: 'payments', doc: 'Task queue of the workflows and activities.' }),
  temporalUiPort: port({ env: 'TEMPORAL_UI_PORT', defaultDoc: 'Temporal port + 1000 (`8233`)', doc: 'Web UI port of the dev server started by `npm start`.' }),
  temporalHttpPort: port({ env: 'TEMPORAL_HTTP_PORT', defaultDoc: 'Temporal port + 10 (`7243`)', doc: 'HTTP API port of the dev server started by `npm start` (fixed, so that webhooks can be kept off it).' }),
  temporalCodecKeys: text({ env: 'TEMPORAL_CODEC_KEYS', secret: true, values: 'key ring', default: DEV_CODEC_KEYS, defaultDoc: '`dev:dede...` (development only)', doc: `The payload codec's key ring: \`<key id>:<64 hex characters>\`, comma-separated (\`k1:...,k2:...\`). Every payload the service writes to Temporal is encrypted (AES-256-GCM) under the current key; a payload under any key of the ring decodes. Rotating keys: docs/operations.md, "Encrypted payloads". ${SECRET}` }),
  temporalCodecKeyId: text({ env: 'TEMPORAL_CODEC_KEY_ID', values: 'key id', defaultDoc: 'the only key', doc: 'Which key of `TEMPORAL_CODEC_KEYS` encrypts new payloads; required when the ring holds several.' }),
  temporalCodecOn: bool({ env: 'TEMPORAL_CODEC', default: true, doc: '`off` sends payloads to Temporal in plaintext: for measurements only (the bench compares both); refused with `NODE_ENV=production`.' }),
  temporalCli: text({ env: 'TEMPORAL_CLI', values: 'path', defaultDoc: '(built)', doc: 'Path of an existing Temporal CLI; otherwise `scripts/temporal-cli.sh` (which reads it) builds v1.5.1 with Go.' }),
  sandboxPort: port({ env: 'SANDBOX_PORT', default: 3100, doc: 'Port of the sandbox acquirer (`npm run sandbox`, and the one `npm start` runs); the default `SANDBOX_URL` follows it.' }),
  sandboxUrl: url({ env: 'SANDBOX_URL', defaultDoc: '`http://127.0.0.1:$SANDBOX_PORT`', doc: 'Sandbox acquirer used for test mode. When set, `npm start` does not start one.' }),
  sandboxNotifySecret: text({ env: 'SANDBOX_NOTIFY_SECRET', secret: true, default: DEV_NOTIFY_SECRET, defaultDoc: '`sandbox-dev-secret` (development only)', doc: `HMAC key of the sandbox's server-to-server notifications, shared by the sandbox and the API. ${SECRET}` }),
  liveProviderUrl: url({ env: 'LIVE_PROVIDER_URL', doc: 'Live acquirer. Without it, live-mode creates answer `422 merchant_not_provisioned`.' }),
  vaultKeyHex: text({ env: 'VAULT_KEY', secret: true, pattern: /^[0-9a-fA-F]{64}$/, values: '64 hex characters', default: DEV_VAULT_KEY, defaultDoc: '64 zeros (development only)', doc: `AES-256-GCM key for card data and webhook secrets at rest. ${SECRET}` }),
  nodeEnv: text({ env: 'NODE_ENV', doc: '`production` makes every process refuse development secrets ([Secrets](#secrets)) and turns `WEBHOOK_ALLOW_LOOPBACK` off by default.' }),
  logLevel: text({ env: 'LOG_LEVEL', pattern: /^(fatal|error|warn|info|debug|trace|silent)$/, values: '`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`', default: 'info', doc: 'pino log level.' }),
  paymentActionTtlSeconds: integer({ env: 'PAYMENT_ACTION_TTL_SECONDS', min: 1, default: 900, doc: 'How long a Payment may stay `REQUIRES_ACTION` before it is `EXPIRED`.' }),
  refundWindowSeconds: integer({ env: 'REFUND_WINDOW_SECONDS', min: 1, default: 180 * DAY, doc: "How long a succeeded Payment's workflow keeps owning its refundable balance." }),
  refundsPerRun: integer({ env: 'PAYMENT_REFUNDS_PER_RUN', min: 1, default: 500, doc: "A Payment's workflow continues as new after this many refunds in one run, so a Payment refunded often keeps a bounded history (it also does once it has put about 4 MB in history by its own count: with eight clients refunding one Payment at once, that is about 140 refunds)." }),
  providerPollInitialSeconds: integer({ env: 'PROVIDER_POLL_INITIAL_SECONDS', min: 1, default: 1, doc: 'A payment, refund or payout the provider has not settled is looked up at the provider after this; the wait doubles up to `PROVIDER_POLL_MAX_SECONDS`, and never comes before a settle time or `Retry-After` the provider gave.' }),
  providerPollMaxSeconds: integer({ env: 'PROVIDER_POLL_MAX_SECONDS', min: 1, default: 300, doc: 'The longest wait between two provider look-ups of one payment, refund or payout.' }),
  providerPollsPerRun: integer({ env: 'PROVIDER_POLLS_PER_RUN', min: 1, default: 100, doc: "A Payout's or Refund's workflow continues as new after this many provider calls in one run, so its history stays bounded however long the provider takes. A Refund takes the value its Payment was created with." }),
  workflowUpdateTimeoutMs: integer({ env: 'WORKFLOW_UPDATE_TIMEOUT_MS', min: 1, default: 25000, doc: 'How long a synchronous create waits for its workflow before answering `503` (retry with the same key).' }),
  // It runs inside one workflow task (a local activity), so it stays well under the task's 10 s time-out.
  payoutAnswerWithinMs: integer({ env: 'PAYOUT_ANSWER_WITHIN_MS', min: 100, max: 5000, default: 1200, doc: 'How long a Payout submission waits for the provider\'s first answer; without one by then the Payout is answered `201 PENDING` and its submission goes on in the background under the same provider key.' }),
  idempotencyRetentionSeconds: integer({ env: 'IDEMPOTENCY_RETENTION_SECONDS', min: 1, default: 30 * DAY, doc: 'How long Shape A idempotency keys are kept.' }),
  shapeBIdempotencyTtlSeconds: integer({ env: 'SHAPE_B_IDEMPOTENCY_TTL_SECONDS', min: 1, default: DAY, doc: 'Shape B idempotency keys expire after this.' }),
  // At most 10 s: a key whose process died is free again within that (CONTRACT 16).
  idempotencyLeaseMs: integer({ env: 'IDEMPOTENCY_LEASE_MS', min: 1000, max: 10_000, default: 9000, doc: 'A claimed key whose request died (its API process was killed) is taken over by a same-key retry after at most this, so such a key is never held longer than 10 s. A request still running renews its lease every third of it, however long it waits: one late or failed renewal still leaves the next in time. Meanwhile a same-key request is `409 idempotency_key_in_use` with `Retry-After: 1`.' }),
  workerMetricsPort: port({ env: 'WORKER_METRICS_PORT', default: 9464, doc: "Port of a worker's own `/metrics` (provider latency, webhook deliveries, status changes) and `/health` (docs/operations.md, \"Process lifecycle\"), served however the worker runs (`npm run worker`, `npm start`); `0` picks a free port. A port already taken is logged as a warning and the worker runs without it." }),
  workerMetricsHost: text({ env: 'WORKER_METRICS_HOST', values: 'address', default: '127.0.0.1', doc: "Address the worker's metrics and health listener binds. Loopback keeps it on the host; in a container network set the container's own address or `0.0.0.0`, and publish the port to nobody but the scraper and the orchestrator." }),
  apiMetricsPort: port({ env: 'API_METRICS_PORT', defaultDoc: '(unset); `9465` with `NODE_ENV=production`', doc: 'When set, the API serves `/metrics` on this port (`GET /metrics` only) and its public port answers `404` there. Unset, `/metrics` is on the public port, which only development allows: in production the public port never serves it.' }),
  apiMetricsHost: text({ env: 'API_METRICS_HOST', values: 'address', default: '127.0.0.1', doc: "Address the API's metrics listener binds (as `WORKER_METRICS_HOST`)." }),
  apiDrainDelayMs: integer({ env: 'API_DRAIN_DELAY_MS', min: 0, defaultDoc: '`0`; `5000` with `NODE_ENV=production`', doc: "After SIGTERM the API keeps accepting connections this long while `/v1/health` answers `503`, so a balancer's health checks take it out before it stops listening (docs/operations.md, \"Process lifecycle\")." }),
  // Below an orchestrator's usual 30 s before SIGKILL.
  apiShutdownTimeoutMs: integer({ env: 'API_SHUTDOWN_TIMEOUT_MS', min: 1, default: 25_000, doc: "After SIGTERM the API exits within this, closing the connections still open then (a request cut this way is retried with the same key). Keep it, and the drain delay, below the orchestrator's grace period (30 s by default)." }),
  // An authorization waits at most 15 s for the acquirer (its activity's time-out).
  workerShutdownGraceMs: integer({ env: 'WORKER_SHUTDOWN_GRACE_MS', min: 0, default: 20_000, doc: "After SIGTERM a worker stops taking tasks at once and lets the activities it runs finish this long (an acquirer call takes at most 15 s) before it cancels them and exits. Keep it below the orchestrator's grace period." }),
  temporalMetricsPort: port({ env: 'TEMPORAL_METRICS_PORT', doc: 'When set, the Temporal SDK runtime serves its worker metrics there in Prometheus format (`npm run worker` and `npm start`).' }),
  workerMaxCachedWorkflows: integer({ env: 'WORKER_MAX_CACHED_WORKFLOWS', min: 0, default: 2000, doc: 'Sticky workflow cache size of a worker.' }),
  webhookAttemptTimeoutMs: integer({ env: 'WEBHOOK_ATTEMPT_TIMEOUT_MS', min: 1, default: 10_000, doc: 'A webhook attempt without a 2xx answer by then has failed.' }),
  webhookInitialRetrySeconds: integer({ env: 'WEBHOOK_INITIAL_RETRY_SECONDS', min: 1, default: 5, doc: 'First webhook retry delay; it doubles up to an hour, for up to 3 days.' }),
  webhookRetrySpanSeconds: integer({ env: 'WEBHOOK_RETRY_SPAN_SECONDS', min: 1, default: 259_200, doc: 'How long a webhook delivery is retried (3 days); an endpoint with no 2xx answer for this long is disabled (`disabled_reason` `failing`). Shorter only for tests.' }),
  webhookRelayLeaseSeconds: integer({ env: 'WEBHOOK_RELAY_LEASE_SECONDS', min: 1, default: 30, doc: "How long the worker that recorded an event owns its first attempts, and a circuit sweeper an endpoint it drains between two attempts; after that another worker's sweeper takes them over. Keep it above twice `WEBHOOK_ATTEMPT_TIMEOUT_MS`, or every event goes behind its endpoint's circuit." }),
  webhookRelaySweepSeconds: integer({ env: 'WEBHOOK_RELAY_SWEEP_SECONDS', min: 1, default: 5, doc: 'How often each worker looks for events whose lease ran out (their worker died).' }),
  webhookRelayConcurrency: integer({ env: 'WEBHOOK_RELAY_CONCURRENCY', min: 1, default: 32, doc: "First attempts of recorded events a worker's relay sends at once." }),
  webhookCircuitSweepSeconds: integer({ env: 'WEBHOOK_CIRCUIT_SWEEP_SECONDS', min: 1, default: 1, doc: "How often each worker looks for failing endpoints whose next probe is due (docs/webhooks.md, \"A failing endpoint\"): a probe comes up to this much after its backoff step." }),
  webhookCircuitDrains: integer({ env: 'WEBHOOK_CIRCUIT_DRAINS', min: 1, default: 8, doc: "Failing endpoints a worker probes, or sends their waiting deliveries to, at once." }),
  webhookAllowLoopback: bool({ env: 'WEBHOOK_ALLOW_LOOPBACK', defaultDoc: '`on`, or `off` with `NODE_ENV=production`', doc: 'Whether test-mode webhooks and callbacks may go to loopback addresses (`http://localhost:4567/...`, local development). Never to a port of the service itself, whatever this says; live mode never uses loopback. See docs/webhooks.md, "Where events may be sent".' }),
  choreSchedules: bool({ env: 'CHORE_SCHEDULES', default: true, doc: "Whether this worker registers the chore schedules (`chore-*`) at start, pointing them at its `TEMPORAL_TASK_QUEUE`. Every worker of the cluster's task queue may: the last registration wins, and they all say the same. `off` for a worker on a task queue of its own (a measurement, a test), whose registration would send the cluster's chores to a queue that outlives it." }),
  vaultSweepSeconds: integer({ env: 'VAULT_SWEEP_SECONDS', min: 1, default: 60, doc: "How often the `chore-cvc-sweep` schedule (once per cluster) forgets the CVCs sealed more than `PAYMENT_ACTION_TTL_SECONDS` plus 5 minutes ago (no authorization can still use them). Workers register the schedule with their own `PAYMENT_ACTION_TTL_SECONDS`: give them the API's value." }),
  // Merchants are promised 30 days: a shorter setting is refused at startup rather than silently raised.
  eventRetentionDays: integer({ env: 'EVENT_RETENTION_DAYS', min: 30, default: 30, doc: 'Events, with their deliveries and attempts, are kept this many days and then purged. At least 30 (merchants are promised 30 days): a smaller value stops the process at startup.' }),
  eventPurgeIntervalSeconds: integer({ env: 'EVENT_PURGE_INTERVAL_SECONDS', min: 1, default: 3600, doc: 'How often the `chore-event-purge` schedule (once per cluster, registered by the workers) purges events past `EVENT_RETENTION_DAYS`, in batches of 1,000.' }),
  rateLimitPerSecond: integer({ env: 'RATE_LIMIT_PER_SECOND', min: 1, default: 100, doc: "The service's own request limit per API key (sustained requests per second). Beyond it: `429 rate_limit_exceeded` with `Retry-After`. With `REDIS_URL` one limit across every API replica; without it, per API process. A key that authenticated recently is limited before its database lookup, so a refusal is cheap; an unknown key is always `401` (the per-address limit bounds those)." }),
  rateLimitBurst: integer({ env: 'RATE_LIMIT_BURST', min: 1, default: 200, doc: 'Requests a key may send at once before the rate applies.' }),
  rateLimitPerAddressPerSecond: integer({ env: 'RATE_LIMIT_PER_ADDRESS_PER_SECOND', min: 1, default: 200, doc: 'Authenticated-route requests per second from one client address, whatever keys they carry (unknown and random ones included), checked before the key is looked up: beyond it `429 rate_limit_exceeded` with `Retry-After`. Shared through `REDIS_URL` like the per-key limit. Behind a balancer it needs `TRUST_PROXY=1`, or every request counts as the balancer\'s.' }),
  rateLimitAddressBurst: integer({ env: 'RATE_LIMIT_ADDRESS_BURST', min: 1, default: 400, doc: 'Requests one client address may send at once before `RATE_LIMIT_PER_ADDRESS_PER_SECOND` applies.' }),
  redisUrl: text({ env: 'REDIS_URL', secret: true, pattern: /^rediss?:\/\/./, values: '`redis://[user:pass@]host:port[/db]`', doc: 'When set, the request limits are counted in this Redis, so they hold across all API replicas. Unset (the `npm start` default), each process counts its own. While Redis does not answer, each process counts in memory (docs/operations.md, "Request limits").' }),
  redisCommandTimeoutMs: integer({ env: 'REDIS_COMMAND_TIMEOUT_MS', min: 1, max: 10_000, default: 250, doc: 'How long a request-limit check waits for Redis before it counts the request in the process instead (`rate_limit_store_fallbacks_total`). Redis answers in well under a millisecond; this only bounds what a hung Redis costs each request.' }),
  redisKeyPrefix: text({ env: 'REDIS_KEY_PREFIX', default: 'payments', doc: 'Prefix of the keys the service writes to `REDIS_URL`; deployments sharing one Redis need different prefixes.' }),
  maxBodyBytes: integer({ env: 'HTTP_MAX_BODY_BYTES', min: 1024, default: 64 * 1024, doc: 'Largest JSON body of an API operation. More: `400 request_body_invalid` (see "HTTP limits").' }),
  // Bounds of the API's HTTP transport: a zero would switch a bound off in Node.
  http: {
    headersTimeoutMs: integer({ env: 'HTTP_HEADERS_TIMEOUT_MS', min: 1, default: 10_000, doc: 'The request line and headers must arrive within this. Later: `408` (see "HTTP limits").' }),
    bodyTimeoutMs: integer({ env: 'HTTP_BODY_TIMEOUT_MS', min: 1, default: 10_000, doc: 'A body must arrive within this after its headers. Later: `408 request_body_invalid`.' }),
    maxHeaderBytes: integer({ env: 'HTTP_MAX_HEADER_BYTES', min: 1, default: 16 * 1024, doc: 'Request line and headers together, in bytes. More: `431 parameter_invalid`.' }),
    maxHeaders: integer({ env: 'HTTP_MAX_HEADERS', min: 1, default: 100, doc: 'Header lines per request. More: `431 parameter_invalid`.' }),
    maxConnections: integer({ env: 'HTTP_MAX_CONNECTIONS', min: 1, default: 1024, doc: 'Open connections per process, idle keep-alive ones included. More are closed as they arrive.' }),
    maxConnectionsPerClient: integer({ env: 'HTTP_MAX_CONNECTIONS_PER_CLIENT', min: 1, default: 256, doc: 'Open connections one client address may hold in a process, below `HTTP_MAX_CONNECTIONS` (a larger value stops the process at startup), so one client cannot take every slot: more from that address are closed as they arrive while others still get in. Not applied with `TRUST_PROXY=1`, where every connection comes from the balancer (see "HTTP limits").' }),
  },
  trustProxy: bool({ env: 'TRUST_PROXY', default: false, doc: 'Whether to trust `X-Forwarded-*` from a reverse proxy (the client address, the scheme).' }),
  codecServer: {
    port: port({ env: 'CODEC_PORT', default: 3200, doc: 'Port of the codec server (`npm run codec-server`, and the one `npm start` runs for the Temporal UI).' }),
    host: text({ env: 'CODEC_HOST', values: 'address', default: '127.0.0.1', doc: 'Address the codec server binds. Anything but loopback requires `CODEC_AUTH_TOKEN`.' }),
    corsOrigins: origins({ env: 'CODEC_CORS_ORIGINS', defaultDoc: '`http://127.0.0.1:$TEMPORAL_UI_PORT,http://localhost:$TEMPORAL_UI_PORT`', doc: "Origins of the Temporal UI: the only pages a browser lets call the codec server; a request with any other `Origin` is refused." }),
    authToken: text({ env: 'CODEC_AUTH_TOKEN', secret: true, doc: `The operator credential of the codec server: when set, every \`/encode\` and \`/decode\` needs it, as \`Authorization: Bearer ...\` (the CLI's \`--codec-auth\`) or as the session its \`/login\` page gives the browser. Unset, the server only binds loopback. ${SECRET}` }),
  },
} as const satisfies SettingGroup;

type Declared = Parsed<typeof SETTINGS>;
type Derived = 'publicBaseUrl' | 'databaseUrl' | 'sandboxUrl' | 'temporalUiPort' | 'temporalHttpPort' | 'webhookAllowLoopback' | 'apiDrainDelayMs' | 'codecServer';

/** What the processes use: the declared settings, with the defaults that follow other settings filled in. */
export interface Config extends Omit<Declared, Derived> {
  publicBaseUrl: string;
  /** Whether PUBLIC_BASE_URL was given; if not, an API on port 0 (tests) points it at the port it bound. */
  publicBaseUrlSet: boolean;
  /** NODE_ENV=production: development conveniences off (docs/configuration.md). */
  production: boolean;
  /** `mysql://...` for MySQL/MariaDB, or `sqlite:<file>` for the embedded default. */
  databaseUrl: string;
  sandboxUrl: string;
  temporalUiPort: number;
  temporalHttpPort: number;
  webhookAllowLoopback: boolean;
  apiDrainDelayMs: number;
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
export type CodecServerSettings = Omit<Declared['codecServer'], 'corsOrigins'> & {
  /** Origins (the Temporal UI's) whose pages may call it; every other origin gets no CORS answer. */
  corsOrigins: string[];
  http: HttpLimits;
};

/** Bounds of every HTTP server the project runs (src/web/transport.ts; docs/configuration.md, "HTTP limits"). */
export type HttpLimits = Declared['http'];

/** One client must not take every slot: the per-client cap stays below the process's. */
export function checkedHttpLimits(limits: HttpLimits): HttpLimits {
  if (limits.maxConnectionsPerClient >= limits.maxConnections) {
    throw new SettingsError([`HTTP_MAX_CONNECTIONS_PER_CLIENT (${limits.maxConnectionsPerClient}) must be below HTTP_MAX_CONNECTIONS (${limits.maxConnections}): one client must not take every slot`]);
  }
  return limits;
}

/** The transport bounds alone, for the processes that read no other service setting (the sandbox). */
export function httpLimits(env: Env = process.env): HttpLimits {
  return checkedHttpLimits(parseSettings({ http: SETTINGS.http }, env).http);
}

export function loadConfig(env: Env = process.env): Config {
  const s = parseSettings(SETTINGS, env);
  const temporalPort = portOf(s.temporalAddress);
  const temporalUiPort = s.temporalUiPort ?? temporalPort + 1000;
  const production = s.nodeEnv === 'production';
  const http = checkedHttpLimits(s.http);
  return {
    ...s,
    production,
    http,
    publicBaseUrl: s.publicBaseUrl ?? `http://localhost:${s.port}`,
    publicBaseUrlSet: s.publicBaseUrl !== null,
    databaseUrl: s.databaseUrl ?? `sqlite:${path.join(s.dataDir, 'payments.sqlite')}`,
    sandboxUrl: s.sandboxUrl ?? `http://127.0.0.1:${s.sandboxPort}`,
    temporalUiPort,
    // Temporal's usual HTTP API port; the dev server would otherwise pick a random one.
    temporalHttpPort: s.temporalHttpPort ?? temporalPort + 10,
    // Off by default in production: there loopback is the servers' own, not a developer's machine.
    webhookAllowLoopback: s.webhookAllowLoopback ?? !production,
    // Production never serves metrics on the public port: they get a port of their own by default.
    apiMetricsPort: s.apiMetricsPort ?? (production ? 9465 : null),
    // Production default: long enough for a balancer's health checks (2 s apart, 2 failures) to take the replica out.
    apiDrainDelayMs: s.apiDrainDelayMs ?? (production ? 5_000 : 0),
    // Off only for measurements (the bench); production refuses it (assertSecrets).
    temporalCodec: s.temporalCodecOn ? keyRing(s.temporalCodecKeys, s.temporalCodecKeyId) : null,
    codecServer: {
      ...s.codecServer,
      corsOrigins: s.codecServer.corsOrigins ?? [`http://127.0.0.1:${temporalUiPort}`, `http://localhost:${temporalUiPort}`],
      http,
    },
  };
}

/** The key ring, or the settings error that names what is wrong with it. */
function keyRing(keysText: string, currentKeyId: string | null): CodecKeyRing {
  try {
    return parseKeyRing(keysText, currentKeyId ?? undefined);
  } catch (error) {
    throw new SettingsError([(error as Error).message]);
  }
}

/** The port of a `host:port` address such as TEMPORAL_ADDRESS. */
export function portOf(address: string): number {
  return Number(address.split(':').pop());
}

/** Which services `npm start` runs itself: those whose address is not given. */
export function devServicesToStart(env: Env = process.env): { temporal: boolean; sandbox: boolean } {
  return { temporal: !isSet(SETTINGS.temporalAddress, env), sandbox: !isSet(SETTINGS.sandboxUrl, env) };
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

// Secrets. With NODE_ENV=production or a live provider configured, a process refuses to start on a
// secret it uses that is missing or a development value: the defaults above are published, and a
// provider notification signed with the published notify secret would be accepted.
// Typed or patterned values are refused too: a secret must be at least MIN_SECRET_LENGTH characters
// (128 bits even as hex), and no secret may repeat a shorter text, hold a run of MIN_RUN characters in
// sequence (`12345678`, `aaaaaaaa`), or have fewer bits of Shannon entropy per character (counted over
// its own characters) than random text of its alphabet reaches in practice. Random values
// (`openssl rand -hex 32`, `-base64 32`) pass with a wide margin (docs/configuration.md, "Secrets").
const MIN_SECRET_LENGTH = 32;
const MIN_RUN = 8;
/** Random 32-character hex strings measured at least 2.79 in 200,000 draws; 64-character hex keys 3.39. */
const MIN_SECRET_BITS_PER_CHARACTER = 2.5;
const MIN_KEY_BITS_PER_CHARACTER = 3;

type SecretRule = (value: string, env: NodeJS.ProcessEnv) => string | null;

function bitsPerCharacter(value: string): number {
  const counts = new Map<string, number>();
  for (const character of value) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) bits -= (count / value.length) * Math.log2(count / value.length);
  return bits;
}

/** The length of the longest stretch whose neighbours all differ by one same step of -1, 0 or +1. */
function longestSequence(value: string): number {
  let longest = Math.min(value.length, 1);
  let run = 1;
  for (let i = 1; i < value.length; i += 1) {
    const step = value.charCodeAt(i) - value.charCodeAt(i - 1);
    const continues = Math.abs(step) <= 1 && (run === 1 || step === value.charCodeAt(i - 1) - value.charCodeAt(i - 2));
    run = continues ? run + 1 : Math.abs(step) <= 1 ? 2 : 1;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** Whether the value is a shorter text written again (and again), as far as it goes: `abcabcab`. */
function repeatsItself(value: string): boolean {
  for (let period = 1; period <= value.length / 2; period += 1) {
    if (value.slice(period) === value.slice(0, value.length - period)) return true;
  }
  return false;
}

function randomnessProblem(value: string, minBitsPerCharacter: number): string | null {
  if (repeatsItself(value)) return 'repeats a shorter text: generate it at random';
  const bits = bitsPerCharacter(value);
  if (bits < minBitsPerCharacter) {
    return `has too little randomness (${bits.toFixed(2)} bits of entropy per character, at least ${minBitsPerCharacter} wanted): generate it at random`;
  }
  if (longestSequence(value) >= MIN_RUN) return `holds ${MIN_RUN} or more characters in sequence (such as 12345678): generate it at random`;
  return null;
}

function sharedSecret(value: string): string | null {
  if (value === DEV_NOTIFY_SECRET || /^change-?me/i.test(value)) return 'is a published development value';
  if (value.length < MIN_SECRET_LENGTH) return `is shorter than ${MIN_SECRET_LENGTH} characters`;
  return randomnessProblem(value, MIN_SECRET_BITS_PER_CHARACTER);
}

export type SecretName = 'VAULT_KEY' | 'SANDBOX_NOTIFY_SECRET' | 'SANDBOX_CONTROL_TOKEN' | 'TEMPORAL_CODEC_KEYS' | 'TEMPORAL_CODEC' | 'CODEC_AUTH_TOKEN';

/** What every process that talks to Temporal checks: its payloads are encrypted, with real keys. */
export const TEMPORAL_SECRETS = ['TEMPORAL_CODEC_KEYS', 'TEMPORAL_CODEC'] as const satisfies readonly SecretName[];

/** The development keys (zeros, the codec's `de...`) and the repository's test and bench keys are one byte repeated. */
const isDevelopmentKey = (hex: string) => /^(..)\1{31}$/.test(hex.toLowerCase());

/** Why a 64-hex-character key may not be used, or null. */
function hexKeyProblem(hex: string): string | null {
  if (isDevelopmentKey(hex)) return 'is a development key (one byte repeated)';
  return randomnessProblem(hex.toLowerCase(), MIN_KEY_BITS_PER_CHARACTER);
}

const SECRETS: Record<SecretName, { rule: SecretRule; optional?: true }> = {
  VAULT_KEY: {
    rule: (value) => {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return 'is not 64 hex characters';
      return hexKeyProblem(value);
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
      const development = Object.entries(ring.keys).filter(([, hex]) => isDevelopmentKey(hex)).map(([id]) => id);
      if (development.length) return `holds a development key (one byte repeated): ${development.join(', ')}`;
      const weak = Object.entries(ring.keys).flatMap(([id, hex]) => {
        const problem = hexKeyProblem(hex);
        return problem ? [`key ${id} ${problem}`] : [];
      });
      return weak.length ? `holds a weak key: ${weak.join('; ')}` : null;
    },
  },
  // Unset means on; off would send every payload to Temporal in plaintext.
  TEMPORAL_CODEC: { rule: (value) => (parseBoolean(value) === false ? 'is off: payloads would reach Temporal in plaintext' : null), optional: true },
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
