// The second red-team round on webhook endpoints (docs/reliability.md, "Findings"): the 16-endpoint
// limit holds under racing creates; rotate_secret takes an Idempotency-Key and never rotates twice;
// a replay never hands back a secret rotated away or an endpoint deleted; live mode sends over
// https only.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { IdempotencyRecord, WebhookEndpoint, WebhookSecret } from '../../src/db/entities';
import { openDataSource } from '../../src/db/data-source';
import { ensureDatabase } from '../../src/db/ensure-database';
import { migrate } from '../../src/db/migrate';
import { MAX_WEBHOOK_ENDPOINTS } from '../../src/domain/webhook-endpoints';
import { AdminOperations } from '../../src/services/admin-operations';
import { WebhookEndpointService } from '../../src/services/webhook-endpoints';
import { destinationPolicy } from '../../src/webhooks/destination';
import { adminOps, call, createMerchant, type TestMerchant, useTestApi } from '../helpers/api';
import { expectError, TEST_BOX } from '../helpers/payments';

const t = useTestApi({ timeoutMs: 60_000 });
let merchant: TestMerchant;

beforeEach(async () => {
  merchant = await createMerchant(t.api, { name: 'Hardened Endpoint Shop' });
});

const endpointBody = (i = 0) => ({ url: `https://shop${i}.example/hooks`, enabled_events: ['*'] });

async function createEndpoint(idempotencyKey = randomUUID(), body: Record<string, unknown> = endpointBody()) {
  return call(t.api, 'POST', '/v1/webhook_endpoints', { key: merchant.testKey, body, idempotencyKey });
}

function rotate(id: string, idempotencyKey: string | null = randomUUID(), body: Record<string, unknown> | undefined = { grace_period_seconds: 3600 }) {
  return call(t.api, 'POST', `/v1/webhook_endpoints/${id}/rotate_secret`, { key: merchant.testKey, body, idempotencyKey });
}

const secretRows = (endpointId: string) => t.api.deps.dataSource.getRepository(WebhookSecret).countBy({ endpoint_id: endpointId });

describe('item 2: the limit holds under racing creates', () => {
  it(`30 parallel creates make exactly ${MAX_WEBHOOK_ENDPOINTS} endpoints; the rest are 400 parameter_invalid (url)`, async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => createEndpoint(randomUUID(), endpointBody(i))));
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(created).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    for (const res of refused) expectError(res, 400, 'parameter_invalid', 'url');
    const rows = await t.api.deps.dataSource.getRepository(WebhookEndpoint).findBy({ merchant_id: merchant.merchantId, livemode: false });
    expect(rows).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    // Each endpoint has its one secret, and a refused create left none behind.
    const secrets = await t.api.deps.dataSource.getRepository(WebhookSecret).findBy({ merchant_id: merchant.merchantId });
    expect(secrets.filter((s) => s.endpoint_id !== null).map((s) => s.endpoint_id).sort()).toEqual(rows.map((r) => r.id).sort());
    // The other mode still has its own sixteen, and deleting one makes room at once.
    expect((await call(t.api, 'POST', '/v1/webhook_endpoints', { key: merchant.liveKey, body: { url: 'https://live.example/hooks', enabled_events: ['*'] } })).status).toBe(201);
    expect((await call(t.api, 'DELETE', `/v1/webhook_endpoints/${created[0]!.json.id}`, { key: merchant.testKey })).status).toBe(200);
    const again = await Promise.all(Array.from({ length: 5 }, (_, i) => createEndpoint(randomUUID(), endpointBody(100 + i))));
    expect(again.filter((a) => a.status === 201)).toHaveLength(1);
  });
});

describe('item 2 on SQLite (the embedded default)', () => {
  // One statement counts and inserts there too. Concurrent transactions in one process are a limit
  // of TypeORM's SQLite driver (one shared connection), whatever they do: docs/reliability.md, "Known gaps".
  it(`the guarded insert works there: ${MAX_WEBHOOK_ENDPOINTS} endpoints, then 400 parameter_invalid (url)`, async () => {
    const url = `sqlite:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'endpoint-limit-')), 'payments.sqlite')}`;
    await ensureDatabase(url);
    await migrate(url);
    const dataSource = await openDataSource(url);
    try {
      const policy = destinationPolicy(t.api.deps.config);
      const { merchant_id: merchantId } = await new AdminOperations(dataSource, TEST_BOX, policy).createMerchant({ name: 'SQLite Shop' });
      const service = new WebhookEndpointService(dataSource, TEST_BOX, policy);
      const create = (i: number, livemode = false) => service.create(
        { merchantId, livemode }, { url: `https://s${i}.example/h`, enabledEvents: ['*'], description: null, apiVersion: '2025-09-01' },
      );
      for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i += 1) await create(i);
      await expect(create(99)).rejects.toMatchObject({ code: 'parameter_invalid', param: 'url' });
      await create(100, true);
      expect(await dataSource.getRepository(WebhookEndpoint).countBy({ merchant_id: merchantId, livemode: false })).toBe(MAX_WEBHOOK_ENDPOINTS);
      expect(await dataSource.getRepository(WebhookEndpoint).countBy({ merchant_id: merchantId, livemode: true })).toBe(1);
    } finally {
      await dataSource.destroy();
    }
  });
});

describe('item 3: rotate_secret takes an Idempotency-Key', () => {
  it('is required: without one, 400 parameter_missing and no rotation', async () => {
    const { id } = (await createEndpoint()).json;
    const res = await rotate(id, null);
    expectError(res, 400, 'parameter_missing', 'Idempotency-Key');
    expect(await secretRows(id)).toBe(1);
  });

  it('a retry with the same key replays the rotation (one new secret); another body with it is 409 idempotency_key_reused', async () => {
    const { id } = (await createEndpoint()).json;
    const key = randomUUID();
    const first = await rotate(id, key);
    expect(first.status).toBe(200);
    const again = await rotate(id, key);
    expect({ status: again.status, replayed: again.headers.get('idempotent-replayed'), same: again.text === first.text }).toEqual({ status: 200, replayed: 'true', same: true });
    expect(await secretRows(id)).toBe(2);
    expectError(await rotate(id, key, { grace_period_seconds: 0 }), 409, 'idempotency_key_reused', 'Idempotency-Key');
    // The saved answer holds the secret: sealed at rest.
    const saved = await t.api.deps.dataSource.getRepository(IdempotencyRecord).findBy({ idempotency_key: key });
    expect(saved).toHaveLength(1);
    expect(saved[0]!.response_body).not.toContain(first.json.secret.slice('whsec_'.length));
  });

  it('a retry after a rotation whose answer was lost (the process died) answers that secret and never rotates twice', async () => {
    const { id } = (await createEndpoint()).json;
    const key = randomUUID();
    const first = await rotate(id, key);
    // As if the process died after storing the new secret and before saving its answer.
    await t.api.deps.dataSource.getRepository(IdempotencyRecord).update({ idempotency_key: key }, { state: 'processing', response_status: null, response_body: null, locked_until_ms: 0 });
    const retried = await rotate(id, key);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.json.secret).toBe(first.json.secret);
    expect(await secretRows(id)).toBe(2);
    // Lost again, and meanwhile another rotation retired that secret: it is not handed out.
    await t.api.deps.dataSource.getRepository(IdempotencyRecord).update({ idempotency_key: key }, { state: 'processing', response_status: null, response_body: null, locked_until_ms: 0 });
    expect((await rotate(id, randomUUID(), { grace_period_seconds: 0 })).status).toBe(200);
    const late = await rotate(id, key);
    expectError(late, 409, 'idempotency_replay_unavailable');
    expect(late.text).not.toContain(first.json.secret);
    expect(await secretRows(id)).toBe(3);
  });
});

describe('item 3: a replay never hands back a secret rotated away or an endpoint deleted', () => {
  it.each([3600, 0])('a create replayed after a rotation (grace %i s) is 409 idempotency_replay_unavailable', async (grace) => {
    const key = randomUUID();
    const created = await createEndpoint(key);
    const replay = await createEndpoint(key);
    expect(replay.text).toBe(created.text); // still current: byte for byte
    expect((await rotate(created.json.id, randomUUID(), { grace_period_seconds: grace })).status).toBe(200);
    const late = await createEndpoint(key);
    expectError(late, 409, 'idempotency_replay_unavailable', 'Idempotency-Key');
    expect(late.text).not.toContain(created.json.secret);
  });

  it('a create replayed after a delete is 404 object_not_found, never "enabled"', async () => {
    const key = randomUUID();
    const created = await createEndpoint(key);
    expect((await call(t.api, 'DELETE', `/v1/webhook_endpoints/${created.json.id}`, { key: merchant.testKey })).status).toBe(200);
    const late = await createEndpoint(key);
    expectError(late, 404, 'object_not_found');
    expect(late.text).not.toContain(created.json.secret);
    expect(late.text).not.toContain('enabled');
  });

  it('a rotation replayed after a later rotation or a delete is refused the same way', async () => {
    const { id } = (await createEndpoint()).json;
    const key = randomUUID();
    const rotated = await rotate(id, key);
    expect((await rotate(id, key)).text).toBe(rotated.text);
    expect((await rotate(id, randomUUID(), { grace_period_seconds: 0 })).status).toBe(200);
    const late = await rotate(id, key);
    expectError(late, 409, 'idempotency_replay_unavailable');
    expect(late.text).not.toContain(rotated.json.secret);
    const other = (await createEndpoint(randomUUID(), endpointBody(1))).json.id as string;
    const otherKey = randomUUID();
    expect((await rotate(other, otherKey)).status).toBe(200);
    await call(t.api, 'DELETE', `/v1/webhook_endpoints/${other}`, { key: merchant.testKey });
    expectError(await rotate(other, otherKey), 404, 'object_not_found');
  });
});

describe('item 4: live mode sends over https only', () => {
  it('a live create or update to a plain http URL is 400 parameter_invalid (url); test mode keeps allowing it', async () => {
    const live = await call(t.api, 'POST', '/v1/webhook_endpoints', { key: merchant.liveKey, body: { url: 'http://shop.example/hooks', enabled_events: ['*'] } });
    expectError(live, 400, 'parameter_invalid', 'url');
    expect(live.json.error.message).toBe('`url` is refused: live mode sends events over https only.');
    const test = await call(t.api, 'POST', '/v1/webhook_endpoints', { key: merchant.testKey, body: { url: 'http://shop.example/hooks', enabled_events: ['*'] } });
    expect(test.status).toBe(201);

    const secure = await call(t.api, 'POST', '/v1/webhook_endpoints', { key: merchant.liveKey, body: { url: 'https://shop.example/hooks', enabled_events: ['*'] } });
    expect(secure.status).toBe(201);
    const downgrade = await call(t.api, 'POST', `/v1/webhook_endpoints/${secure.json.id}`, { key: merchant.liveKey, body: { url: 'http://shop.example/hooks' } });
    expectError(downgrade, 400, 'parameter_invalid', 'url');
    expect((await call(t.api, 'GET', `/v1/webhook_endpoints/${secure.json.id}`, { key: merchant.liveKey })).json.url).toBe('https://shop.example/hooks');
    const list = await call(t.api, 'GET', '/v1/webhook_endpoints', { key: merchant.liveKey });
    expect(list.json.data.map((e: { url: string }) => e.url)).toEqual(['https://shop.example/hooks']);
  });

  it('the admin --webhook-url makes a live endpoint only for a URL live mode may use', async () => {
    const m = await createMerchant(t.api, { name: 'Operator Https Shop', webhookUrl: 'https://ops.example/hooks' });
    const liveList = async () => (await call(t.api, 'GET', '/v1/webhook_endpoints', { key: m.liveKey })).json.data as Array<{ url: string }>;
    const testList = async () => (await call(t.api, 'GET', '/v1/webhook_endpoints', { key: m.testKey })).json.data as Array<{ url: string }>;
    expect((await liveList()).map((e) => e.url)).toEqual(['https://ops.example/hooks']);
    await adminOps(t.api).updateMerchant(m.merchantId, { webhookUrl: 'http://ops.example/hooks' });
    expect((await testList()).map((e) => e.url)).toEqual(['http://ops.example/hooks']);
    expect(await liveList()).toEqual([]);
    await adminOps(t.api).updateMerchant(m.merchantId, { webhookUrl: 'https://ops.example/v2' });
    expect((await liveList()).map((e) => e.url)).toEqual(['https://ops.example/v2']);
  });
});
