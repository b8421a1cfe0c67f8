// Every setting is declared once (src/config.ts; the sandbox's in src/provider/sandbox/config.ts) and
// parsed by the same rules: a bad value stops the process naming the variable, an empty one counts as
// unset, booleans take one set of spellings, and defaults that follow other settings follow them.
import { describe, expect, it } from '@jest/globals';
import {
  BOOLEAN_SPELLINGS, SETTINGS, SettingsError, declarations, devServicesToStart, httpLimits, loadConfig, secretProblems, settingInfo, type Setting,
} from '../../src/config';
import { SANDBOX_SETTINGS, sandboxConfig } from '../../src/provider/sandbox/config';
import { paymentSettings } from '../../src/services/payments';
import { payoutSettings } from '../../src/services/payouts';

type Env = Record<string, string>;

/** The problems a refused environment is refused for. */
function problems(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof SettingsError) return error.problems;
    throw error;
  }
  throw new Error('the settings were accepted');
}

const booleans = declarations(SETTINGS).filter((setting) => settingInfo(setting).values === 'boolean');

describe('the service settings', () => {
  it('are the released defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000, publicBaseUrl: 'http://localhost:3000', publicBaseUrlSet: false, trustProxy: false,
      databasePoolSize: 20, temporalAddress: '127.0.0.1:7233', temporalUiPort: 8233, temporalHttpPort: 7243,
      sandboxPort: 3100, sandboxUrl: 'http://127.0.0.1:3100', sandboxNotifySecret: 'sandbox-dev-secret', liveProviderUrl: null,
      workerMaxCachedWorkflows: 2000, workerMetricsPort: 9464, apiMetricsPort: null, temporalMetricsPort: null,
      maxBodyBytes: 64 * 1024, webhookRelayConcurrency: 32, webhookAllowLoopback: true, eventRetentionDays: 30,
      payoutAnswerWithinMs: 1200, refundWindowSeconds: 180 * 24 * 3600, logLevel: 'info',
      http: { headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000, maxHeaderBytes: 16 * 1024, maxHeaders: 100, maxConnections: 1024, maxConnectionsPerClient: 256 },
      codecServer: { host: '127.0.0.1', port: 3200, authToken: null, corsOrigins: ['http://127.0.0.1:8233', 'http://localhost:8233'] },
      temporalCodec: { currentKeyId: 'dev', keys: { dev: 'de'.repeat(32) } },
    });
    expect(config.databaseUrl).toMatch(/^sqlite:.*\/\.data\/payments\.sqlite$/);
    // The poll schedules that were written into the services.
    expect(paymentSettings(config, 'pay_1')).toMatchObject({ pollIntervalSeconds: 1, maxPollIntervalSeconds: 300 });
    expect(payoutSettings(config)).toEqual({ initialSeconds: 1, maxSeconds: 300, pollsPerRun: 100, answerWithinMs: 1200 });
  });

  it('make the poll schedule, the relay concurrency and the body limit settable', () => {
    const config = loadConfig({
      PROVIDER_POLL_INITIAL_SECONDS: '2', PROVIDER_POLL_MAX_SECONDS: '60', PROVIDER_POLLS_PER_RUN: '10',
      WEBHOOK_RELAY_CONCURRENCY: '4', HTTP_MAX_BODY_BYTES: '131072',
    });
    expect(paymentSettings(config, 'pay_1')).toMatchObject({ pollIntervalSeconds: 2, maxPollIntervalSeconds: 60 });
    expect(payoutSettings(config)).toMatchObject({ initialSeconds: 2, maxSeconds: 60, pollsPerRun: 10 });
    expect(config).toMatchObject({ webhookRelayConcurrency: 4, maxBodyBytes: 131072 });
  });

  it('TRUST_PROXY=true trusts the proxy; every boolean takes the same spellings, in any case', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(booleans.map((setting) => settingInfo(setting).env)).toEqual(['TEMPORAL_CODEC', 'WEBHOOK_ALLOW_LOOPBACK', 'CHORE_SCHEDULES', 'TRUST_PROXY']);
    for (const setting of booleans) {
      for (const [value, spellings] of [[true, BOOLEAN_SPELLINGS.true], [false, BOOLEAN_SPELLINGS.false]] as const) {
        for (const spelling of spellings.flatMap((s) => [s, s.toUpperCase()])) {
          expect({ env: settingInfo(setting).env, spelling, value: setting.parse(spelling) }).toEqual({ env: settingInfo(setting).env, spelling, value });
        }
      }
      expect(setting.safeParse('maybe').success).toBe(false);
    }
    // The production check of TEMPORAL_CODEC reads it with the same spellings.
    expect(secretProblems(['TEMPORAL_CODEC'], { NODE_ENV: 'production', TEMPORAL_CODEC: 'No' })).toEqual(['TEMPORAL_CODEC is off: payloads would reach Temporal in plaintext']);
    expect(loadConfig({ TEMPORAL_CODEC: 'No' }).temporalCodec).toBeNull();
  });

  it('refuse values that are not numbers, naming each variable at once', () => {
    expect(problems(() => loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: 'abc', DATABASE_POOL_SIZE: 'x', TRUST_PROXY: 'maybe' }))).toEqual([
      'DATABASE_POOL_SIZE must be an integer from 1 to 1000, got "x"',
      'WORKER_MAX_CACHED_WORKFLOWS must be an integer, at least 0, got "abc"',
      'TRUST_PROXY must be one of 1, true, yes, on / 0, false, no, off, got "maybe"',
    ]);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: 'x' })).toThrow(/^invalid settings: DATABASE_POOL_SIZE must be/);
  });

  it.each<[string, Env]>([
    ['a fraction', { RATE_LIMIT_BURST: '1.5' }],
    ['a negative number', { WORKER_MAX_CACHED_WORKFLOWS: '-1' }],
    ['an exponent', { IDEMPOTENCY_LEASE_MS: '1e3' }],
    ['a zero that would switch a bound off', { HTTP_MAX_CONNECTIONS: '0' }],
    ['a port past 65535', { PORT: '70000' }],
    ['an answer deadline outside 100 to 5000 ms', { PAYOUT_ANSWER_WITHIN_MS: '99' }],
    ['an event retention under the 30 days promised', { EVENT_RETENTION_DAYS: '29' }],
    ['a URL without a scheme', { PUBLIC_BASE_URL: 'pay.example.com' }],
    ['a Temporal address without a port', { TEMPORAL_ADDRESS: 'temporal.internal' }],
    ['an unknown database', { DATABASE_URL: 'postgres://db/payments' }],
    ['an unknown log level', { LOG_LEVEL: 'verbose' }],
  ])('refuse %s', (_label, env) => {
    const [name] = Object.keys(env);
    expect(problems(() => loadConfig(env))).toEqual([expect.stringMatching(new RegExp(`^${name} must be .*, got "${env[name!]!.replace('.', '\\.')}"$`))]);
  });

  it('accept the bounds themselves', () => {
    expect(loadConfig({ PAYOUT_ANSWER_WITHIN_MS: '5000', PORT: '65535', EVENT_RETENTION_DAYS: '30', WORKER_MAX_CACHED_WORKFLOWS: '0' }))
      .toMatchObject({ payoutAnswerWithinMs: 5000, port: 65535, eventRetentionDays: 30, workerMaxCachedWorkflows: 0 });
  });

  it('never repeat a secret in a refusal', () => {
    const refused = problems(() => loadConfig({ VAULT_KEY: 'my-real-vault-key', SANDBOX_NOTIFY_SECRET: '' }));
    expect(refused).toEqual(['VAULT_KEY must be 64 hex characters']);
    expect(() => loadConfig({ TEMPORAL_CODEC_KEYS: 'k1:short' })).toThrow(/TEMPORAL_CODEC_KEYS: "k1:\.\.\." is not <key id>:<64 hex characters>/);
    expect(() => loadConfig({ TEMPORAL_CODEC_KEYS: 'k1:short' })).not.toThrow(/short/);
  });

  it('count an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', TRUST_PROXY: '', API_METRICS_PORT: '', PUBLIC_BASE_URL: '' }))
      .toMatchObject({ port: 3000, trustProxy: false, apiMetricsPort: null, publicBaseUrl: 'http://localhost:3000', publicBaseUrlSet: false });
  });

  it('derive the defaults that follow other settings, and take them when given', () => {
    expect(loadConfig({ PORT: '4000', SANDBOX_PORT: '4100', TEMPORAL_ADDRESS: 'temporal.internal:7300', DATA_DIR: '/srv/payments', NODE_ENV: 'production' })).toMatchObject({
      publicBaseUrl: 'http://localhost:4000', sandboxUrl: 'http://127.0.0.1:4100', temporalUiPort: 8300, temporalHttpPort: 7310,
      databaseUrl: 'sqlite:/srv/payments/payments.sqlite', webhookAllowLoopback: false,
      codecServer: { corsOrigins: ['http://127.0.0.1:8300', 'http://localhost:8300'] },
      // Production: metrics off the public port, and a drain delay for the balancer's health checks.
      production: true, apiMetricsPort: 9465, apiDrainDelayMs: 5000,
    });
    expect(loadConfig({})).toMatchObject({ production: false, apiMetricsPort: null, apiDrainDelayMs: 0, idempotencyLeaseMs: 9000 });
    expect(loadConfig({ NODE_ENV: 'production', API_METRICS_PORT: '9500', API_DRAIN_DELAY_MS: '0' })).toMatchObject({ apiMetricsPort: 9500, apiDrainDelayMs: 0 });
    expect(loadConfig({
      PUBLIC_BASE_URL: 'https://pay.example.com/', SANDBOX_URL: 'http://sandbox:3100/', TEMPORAL_UI_PORT: '9000',
      CODEC_CORS_ORIGINS: 'https://ui.example.com/, https://other.example.com', NODE_ENV: 'production', WEBHOOK_ALLOW_LOOPBACK: 'on',
    })).toMatchObject({
      publicBaseUrl: 'https://pay.example.com', publicBaseUrlSet: true, sandboxUrl: 'http://sandbox:3100', temporalUiPort: 9000,
      webhookAllowLoopback: true, codecServer: { corsOrigins: ['https://ui.example.com', 'https://other.example.com'] },
    });
  });

  it('hold a dead request\'s idempotency key at most 10 s, and keep one client below the connection cap', () => {
    expect(problems(() => loadConfig({ IDEMPOTENCY_LEASE_MS: '30000' }))).toEqual(['IDEMPOTENCY_LEASE_MS must be an integer from 1000 to 10000, got "30000"']);
    expect(problems(() => loadConfig({ HTTP_MAX_CONNECTIONS: '100', HTTP_MAX_CONNECTIONS_PER_CLIENT: '100' }))).toEqual([
      'HTTP_MAX_CONNECTIONS_PER_CLIENT (100) must be below HTTP_MAX_CONNECTIONS (100): one client must not take every slot',
    ]);
    expect(problems(() => httpLimits({ HTTP_MAX_CONNECTIONS_PER_CLIENT: '2000' }))).toHaveLength(1);
    expect(loadConfig({ HTTP_MAX_CONNECTIONS_PER_CLIENT: '10' }).codecServer.http.maxConnectionsPerClient).toBe(10);
  });

  it('tell `npm start` which services it runs itself: those whose address is not given', () => {
    expect(devServicesToStart({})).toEqual({ temporal: true, sandbox: true });
    expect(devServicesToStart({ TEMPORAL_ADDRESS: '127.0.0.1:7233', SANDBOX_URL: '' })).toEqual({ temporal: false, sandbox: true });
  });
});

describe('the sandbox acquirer settings', () => {
  it('read SANDBOX_PORT and the notify secret through the declarations the service reads them with', () => {
    const env = { SANDBOX_PORT: '4100', SANDBOX_NOTIFY_SECRET: 'shared-notify-secret' };
    expect(sandboxConfig(env)).toMatchObject({ port: 4100, notifySecret: 'shared-notify-secret' });
    expect(loadConfig(env)).toMatchObject({ sandboxPort: 4100, sandboxNotifySecret: 'shared-notify-secret' });
    const refusal = 'SANDBOX_PORT must be a port number (0 to 65535), got "31OO"';
    expect(problems(() => sandboxConfig({ SANDBOX_PORT: '31OO' }))).toEqual([refusal]);
    expect(problems(() => loadConfig({ SANDBOX_PORT: '31OO' }))).toEqual([refusal]);
  });

  it('are the released defaults, and refuse a settle time outside 0 to a day', () => {
    expect(sandboxConfig({})).toEqual({ port: 3100, settleMs: 1000, publicUrl: null, notifySecret: 'sandbox-dev-secret', controlToken: null, http: httpLimits({}) });
    expect(sandboxConfig({ SANDBOX_SETTLE_MS: '0', SANDBOX_PUBLIC_URL: 'https://3ds.example.com/' })).toMatchObject({ settleMs: 0, publicUrl: 'https://3ds.example.com' });
    expect(problems(() => sandboxConfig({ SANDBOX_SETTLE_MS: '-1' }))).toEqual(['SANDBOX_SETTLE_MS must be an integer from 0 to 86400000, got "-1"']);
  });
});

describe('the declarations', () => {
  it('name each variable once: a variable two processes read is one declaration', () => {
    const byName = new Map<string, Setting>();
    for (const setting of [...declarations(SETTINGS), ...declarations(SANDBOX_SETTINGS)]) {
      const { env } = settingInfo(setting);
      expect({ env, same: (byName.get(env) ?? setting) === setting }).toEqual({ env, same: true });
      byName.set(env, setting);
    }
    expect(byName.size).toBeGreaterThan(60);
  });
});
