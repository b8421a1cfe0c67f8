// Per-test-file API server and small HTTP helpers for the integration suite.
import path from 'node:path';
import pino from 'pino';
import { randomUUID } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config';
import { AdminOperations } from '../../src/services/admin-operations';
import { startApi, type RunningApi } from '../../src/api/server';
import { createLogger } from '../../src/observability/logger';
import { destinationPolicy } from '../../src/webhooks/destination';
import { TEST_LOG_DIR } from './processes';
import { TEST_ENV } from './test-env';

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig(),
    port: 0,
    databaseUrl: TEST_ENV.databaseUrl,
    temporalAddress: `127.0.0.1:${TEST_ENV.temporalPort}`,
    taskQueue: TEST_ENV.taskQueue,
    sandboxUrl: `http://127.0.0.1:${TEST_ENV.sandboxPort}`,
    sandboxNotifySecret: TEST_ENV.notifySecret,
    vaultKeyHex: TEST_ENV.vaultKey,
    temporalCodec: TEST_ENV.codecKeys,
    paymentActionTtlSeconds: TEST_ENV.actionTtlSeconds,
    ...overrides,
  };
}

export async function startTestApi(overrides: Partial<Config> = {}): Promise<RunningApi> {
  const logger = createLogger('api', 'info', pino.destination({ dest: path.join(TEST_LOG_DIR, 'api.log'), sync: true, append: true, mkdir: true }));
  return startApi(testConfig(overrides), logger);
}

export interface TestMerchant {
  merchantId: string;
  testKey: string;
  liveKey: string;
  webhookSecret: string;
}

export async function createMerchant(api: RunningApi, options: { name?: string; currencies?: string; defaultVersion?: string; webhookUrl?: string } = {}): Promise<TestMerchant> {
  const ops = adminOps(api);
  const created = await ops.createMerchant({ name: options.name ?? 'Test Shop', ...options });
  return { merchantId: created.merchant_id, testKey: created.test_key, liveKey: created.live_key, webhookSecret: created.webhook_secret };
}

export function adminOps(api: RunningApi): AdminOperations {
  return new AdminOperations(api.deps.dataSource, api.deps.secretBox, destinationPolicy(api.deps.config));
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string | null;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** What `call` needs of an API: its URL, so an API in another process (`{ url }`) will do too. */
export type ApiTarget = Pick<RunningApi, 'url'>;

export async function call(api: ApiTarget, method: string, urlPath: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.Authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  if (method === 'POST' && options.idempotencyKey !== null && !('Idempotency-Key' in headers)) {
    headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
  }
  const response = await fetch(`${api.url}${urlPath}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let json: unknown = null;
  try { json = JSON.parse(text); } catch { json = null; }
  return { status: response.status, headers: response.headers, text, json };
}

export { eventually } from './eventually';

export function directPaymentBody(overrides: Record<string, unknown> = {}, card: Record<string, unknown> = {}) {
  return {
    amount: 4999,
    currency: 'usd',
    payment_method_data: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123', holder_name: 'Ada Lovelace', ...card } },
    customer_ip_address: '203.0.113.7',
    return_url: 'https://shop.example/return',
    ...overrides,
  };
}

export interface TestApi {
  /** The file's API server, started before its first test and closed after its last. */
  readonly api: RunningApi;
  /** A merchant created on it for the file. */
  readonly merchant: TestMerchant;
}

/** A value, or a function that gives it when the fixture starts (from what earlier hooks set up). */
type OrLater<T> = T | (() => T | Promise<T>);

const resolve = <T extends object>(value: OrLater<T> | undefined): T | Promise<T> | undefined =>
  (typeof value === 'function' ? value() : value);

/**
 * The fixture of an integration file: an API server and a merchant, started in `beforeAll` and
 * closed in `afterAll`. Read them as `t.api` and `t.merchant` inside hooks and tests. `config` and
 * `merchant` may be functions, called in that `beforeAll`, when they need what an earlier hook
 * started (a webhook receiver's URL, a free port).
 */
export function useTestApi(options: { config?: OrLater<Partial<Config>>; merchant?: OrLater<Parameters<typeof createMerchant>[1] & object>; timeoutMs?: number } = {}): TestApi {
  let started: { api: RunningApi; merchant: TestMerchant } | undefined;
  const get = () => {
    if (!started) throw new Error('useTestApi: read t.api and t.merchant inside hooks and tests, not while the file loads');
    return started;
  };
  beforeAll(async () => {
    const api = await startTestApi(await resolve(options.config));
    started = { api, merchant: await createMerchant(api, await resolve(options.merchant)) };
  }, options.timeoutMs);
  afterAll(async () => { await started?.api.close(); });
  return { get api() { return get().api; }, get merchant() { return get().merchant; } };
}
