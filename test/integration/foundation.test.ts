// Foundation: authentication, errors, versions, precedence, health and the admin command against
// a real MariaDB and a real Temporal server.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';
import { adminOps, call, createMerchant, directPaymentBody, startTestApi, useTestApi } from '../helpers/api';
import { TEST_ENV } from '../helpers/test-env';

const t = useTestApi();

const REQUEST_ID = /^req_[A-Za-z0-9]{24}$/;

function expectEnvelope(res: { status: number; headers: Headers; json: any }, status: number, code: string, param?: string) {
  expect(res.status).toBe(status);
  expect(res.json.error.code).toBe(code);
  expect(typeof res.json.error.message).toBe('string');
  expect(res.json.error.request_id).toMatch(REQUEST_ID);
  expect(res.headers.get('request-id')).toBe(res.json.error.request_id);
  if (param !== undefined) expect(res.json.error.param).toBe(param);
}

describe('authentication', () => {
  it.each([
    ['missing', undefined],
    ['not bearer', 'Basic abc'],
    ['malformed', 'Bearer svc_test_sk_short'],
    ['wrong prefix', 'Bearer sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['unknown', 'Bearer svc_test_sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ])('%s token -> 401 invalid_api_key', async (_label, header) => {
    const res = await call(t.api, 'GET', '/v1/payments', { headers: header ? { Authorization: header } : {} });
    expectEnvelope(res, 401, 'invalid_api_key');
    expect(res.json.error.param).toBeUndefined();
  });

  it.each(['bearer', 'BEARER'])('the scheme spelled %s is Bearer (case-insensitive)', async (scheme) => {
    const res = await call(t.api, 'GET', '/v1/payments', { headers: { Authorization: `${scheme} ${t.merchant.testKey}` } });
    expect(res.status).toBe(200);
  });

  it('an expired key -> 401', async () => {
    const { key } = await adminOps(t.api).createKey({ merchantId: t.merchant.merchantId, mode: 'test', expiresAt: Math.floor(Date.now() / 1000) - 1 });
    expectEnvelope(await call(t.api, 'GET', '/v1/payments', { key }), 401, 'invalid_api_key');
  });

  it('a revoked key -> 401, and it worked before', async () => {
    const { key } = await adminOps(t.api).createKey({ merchantId: t.merchant.merchantId, mode: 'test' });
    expect((await call(t.api, 'GET', '/v1/payments', { key })).status).toBe(200);
    await adminOps(t.api).revokeKey(key);
    expectEnvelope(await call(t.api, 'GET', '/v1/payments', { key }), 401, 'invalid_api_key');
  });

  it('a key whose mode prefix was changed -> 401', async () => {
    const swapped = t.merchant.testKey.replace('svc_test_sk_', 'svc_live_sk_');
    expectEnvelope(await call(t.api, 'GET', '/v1/payments', { key: swapped }), 401, 'invalid_api_key');
  });

  it('API keys are stored only as hashes', async () => {
    const rows: Array<Record<string, unknown>> = await t.api.deps.dataSource.query('SELECT * FROM api_keys WHERE merchant_id = ?', [t.merchant.merchantId]);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(t.merchant.testKey);
    expect(dump).not.toContain(t.merchant.liveKey);
  });
});

describe('routing and envelopes', () => {
  it('an unknown path -> 404 resource_not_found before authentication', async () => {
    const res = await call(t.api, 'GET', '/v1/nothing-here');
    expectEnvelope(res, 404, 'resource_not_found');
  });

  it('a wrong method on a known path -> 404 resource_not_found', async () => {
    expectEnvelope(await call(t.api, 'DELETE', '/v1/payments', { key: t.merchant.testKey }), 404, 'resource_not_found');
    expectEnvelope(await call(t.api, 'PUT', '/v1/payments/pay_AAAAAAAAAAAAAAAAAAAAAAAA', { key: t.merchant.testKey }), 404, 'resource_not_found');
  });

  it('every response carries a Request-Id, successes too', async () => {
    const res = await call(t.api, 'GET', '/v1/payments', { key: t.merchant.testKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toMatch(REQUEST_ID);
    expect(res.headers.get('service-version')).toBe('2025-09-01');
  });

  it('an error never leaks a stack trace or internals', async () => {
    const res = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, rawBody: '{"amount": 1,', headers: { 'Content-Type': 'application/json' } });
    expectEnvelope(res, 400, 'request_body_invalid');
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe('Service-Version', () => {
  it('a malformed header -> 400 parameter_invalid', async () => {
    expectEnvelope(await call(t.api, 'GET', '/v1/payments', { key: t.merchant.testKey, headers: { 'Service-Version': '2025-9-1' } }), 400, 'parameter_invalid', 'Service-Version');
  });
  it('an unknown but well-formed date -> 400 parameter_invalid', async () => {
    expectEnvelope(await call(t.api, 'GET', '/v1/payments', { key: t.merchant.testKey, headers: { 'Service-Version': '2023-01-01' } }), 400, 'parameter_invalid', 'Service-Version');
  });
  it('a known version is echoed', async () => {
    const res = await call(t.api, 'GET', '/v1/payments', { key: t.merchant.testKey, headers: { 'Service-Version': '2025-09-01' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('service-version')).toBe('2025-09-01');
  });
  it('the merchant default applies without a header', async () => {
    const other = await createMerchant(t.api, { defaultVersion: '2024-06-01' });
    const res = await call(t.api, 'GET', '/v1/payments', { key: other.testKey });
    expect(res.headers.get('service-version')).toBe('2024-06-01');
  });
});

describe('precedence (the order of checks)', () => {
  it('authentication comes before the version header', async () => {
    expectEnvelope(await call(t.api, 'GET', '/v1/payments', { headers: { 'Service-Version': 'nope' } }), 401, 'invalid_api_key');
  });
  it('the version header comes before capability', async () => {
    const m = await createMerchant(t.api);
    await adminOps(t.api).updateMerchant(m.merchantId, { payments: false });
    expectEnvelope(await call(t.api, 'POST', '/v1/payments', { key: m.testKey, body: {}, headers: { 'Service-Version': 'nope' } }), 400, 'parameter_invalid', 'Service-Version');
  });
  it('capability comes before the Idempotency-Key', async () => {
    const m = await createMerchant(t.api);
    await adminOps(t.api).updateMerchant(m.merchantId, { payments: false });
    expectEnvelope(await call(t.api, 'POST', '/v1/payments', { key: m.testKey, body: {}, idempotencyKey: null }), 403, 'payment_acceptance_unavailable');
  });
  it('the Idempotency-Key comes before the body', async () => {
    expectEnvelope(await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, rawBody: 'not json', idempotencyKey: null }), 400, 'parameter_missing', 'Idempotency-Key');
    expectEnvelope(await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, rawBody: 'not json', idempotencyKey: 'k'.repeat(256) }), 400, 'parameter_invalid', 'Idempotency-Key');
  });
  it('the body comes before business rules', async () => {
    const m = await createMerchant(t.api);
    await adminOps(t.api).updateMerchant(m.merchantId, { provisioned: false });
    expectEnvelope(await call(t.api, 'POST', '/v1/payments', { key: m.testKey, body: { ...directPaymentBody(), amount: 'x' } }), 400, 'request_body_invalid', 'amount');
    expectEnvelope(await call(t.api, 'POST', '/v1/payments', { key: m.testKey, body: directPaymentBody() }), 422, 'merchant_not_provisioned');
  });
  it('live mode without a live provider is not provisioned', async () => {
    expectEnvelope(await call(t.api, 'POST', '/v1/payments', { key: t.merchant.liveKey, body: directPaymentBody({}, { number: '4111111111111111' }) }), 422, 'merchant_not_provisioned');
  });
});

describe('health', () => {
  it('is up with a real database and Temporal', async () => {
    const res = await call(t.api, 'GET', '/v1/health');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
  });

  it('reports the database down when it is unreachable', async () => {
    const broken = await startTestApi();
    try {
      await broken.deps.dataSource.destroy();
      const res = await call(broken, 'GET', '/v1/health');
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ status: 'unavailable', checks: { database: 'unavailable', temporal: 'ok' } });
    } finally {
      await broken.deps.dataSource.initialize();
      await broken.close();
    }
  });

  it('reports Temporal down when the server is unreachable', async () => {
    const running = await startTestApi();
    try {
      await running.deps.temporal.connection.close();
      const res = await call(running, 'GET', '/v1/health');
      expect(res.status).toBe(503);
      expect(res.json.checks).toEqual({ database: 'ok', temporal: 'unavailable' });
    } finally {
      await running.close().catch(() => undefined);
    }
  });
});

describe('admin command (npm run admin)', () => {
  const admin = (...args: string[]) => JSON.parse(execFileSync(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), [path.join(PROJECT_ROOT, 'src/admin/cli.ts'), ...args], {
    env: { ...process.env, DATABASE_URL: TEST_ENV.databaseUrl, VAULT_KEY: TEST_ENV.vaultKey },
    encoding: 'utf8',
  }));

  it('creates a merchant with working keys, updates it, and manages keys', async () => {
    const created = admin('merchant', 'create', '--name', 'CLI Shop', '--currencies', 'usd,EUR', '--json');
    expect(created.merchant_id).toMatch(/^mer_[A-Za-z0-9]{24}$/);
    expect(created.test_key).toMatch(/^svc_test_sk_[A-Za-z0-9]{32}$/);
    expect(created.live_key).toMatch(/^svc_live_sk_[A-Za-z0-9]{32}$/);
    expect(created.webhook_secret).toMatch(/^whsec_/);
    expect((await call(t.api, 'GET', '/v1/payments', { key: created.test_key })).status).toBe(200);

    const updated = admin('merchant', 'update', created.merchant_id, '--payments', 'off', '--default-version', '2024-06-01', '--json');
    expect(updated).toMatchObject({ payments: false, default_version: '2024-06-01', currencies: ['USD', 'EUR'] });
    expect((await call(t.api, 'POST', '/v1/payments', { key: created.test_key, body: directPaymentBody() })).json.error.code).toBe('payment_acceptance_unavailable');

    const { key } = admin('key', 'create', '--merchant', created.merchant_id, '--mode', 'test', '--no-refunds', '--json');
    expect(key).toMatch(/^svc_test_sk_/);
    expect((await call(t.api, 'GET', '/v1/payments', { key })).status).toBe(200);
    admin('key', 'revoke', key, '--json');
    expect((await call(t.api, 'GET', '/v1/payments', { key })).status).toBe(401);
  });

  it('refuses bad input with a message and exit code 2', () => {
    expect(() => execFileSync(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), [path.join(PROJECT_ROOT, 'src/admin/cli.ts'), 'merchant', 'create', '--name', 'X', '--currencies', 'DOLLARS'], {
      env: { ...process.env, DATABASE_URL: TEST_ENV.databaseUrl }, encoding: 'utf8', stdio: 'pipe',
    })).toThrow(/currencies/);
  });
});

describe('isolation between merchants and modes', () => {
  it('lists show only the caller\'s merchant and mode', async () => {
    const other = await createMerchant(t.api);
    const res = await call(t.api, 'GET', '/v1/payments', { key: other.liveKey });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ object: 'list', data: [], has_more: false, url: '/v1/payments' });
  });
});
