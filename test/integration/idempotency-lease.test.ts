// The lease of an idempotency claim tells a dead request from a slow one (docs/api-reference.md,
// "Idempotency"): a request still running keeps its claim however long it takes (a Shape B create
// waits for two workflow updates), and a request whose claim was taken over (it stalled past its
// lease) never releases the lease of the request that took it. Against MariaDB.
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { IdempotencyStore, type IdempotencyScope } from '../../src/services/idempotency';
import { openDataSource } from '../../src/db/data-source';
import { ApiError } from '../../src/domain/errors';
import { TEST_ENV } from '../helpers/test-env';

let dataSource: DataSource;
beforeAll(async () => { dataSource = await openDataSource(TEST_ENV.databaseUrl); });
afterAll(async () => { await dataSource.destroy(); });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function scope(leaseMs: number): IdempotencyScope {
  return { apiKeyId: `key_${randomUUID().slice(0, 8)}`, operation: 'payments.create', key: randomUUID(), fingerprint: 'f'.repeat(64), objectKind: 'payment', retentionSeconds: 3600, leaseMs };
}

async function codeOf(promise: Promise<unknown>): Promise<string | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

it('a request running four times its lease keeps its claim: a same-key request meanwhile is idempotency_key_in_use', async () => {
  const store = new IdempotencyStore(dataSource);
  const s = scope(300);
  let runs = 0;
  const slow = store.run(s, async (objectId) => {
    runs += 1;
    await sleep(1200);
    return { status: 201, body: JSON.stringify({ id: objectId }) };
  });
  await sleep(900);
  expect(await codeOf(store.run(s, async () => { runs += 1; return { status: 201, body: '{}' }; }))).toBe('idempotency_key_in_use');
  const first = await slow;
  expect(first.replayed).toBe(false);
  const replay = await store.run(s, async () => { runs += 1; return { status: 201, body: '{}' }; });
  expect(replay).toEqual({ replayed: true, response: first.response });
  expect(runs).toBe(1);
});

it('a request whose claim was taken over does not release the lease of the request that took it', async () => {
  const store = new IdempotencyStore(dataSource);
  const s = scope(10_000);
  let releaseStalled: () => void = () => {};
  const stalled = store.run(s, async () => {
    await new Promise<void>((resolve) => { releaseStalled = resolve; });
    throw new ApiError('service_unavailable');
  });
  await sleep(100);
  // The stalled request's lease runs out (as if its process had paused for longer than it).
  await dataSource.query('UPDATE idempotency_records SET locked_until_ms = 1 WHERE api_key_id = ? AND idempotency_key = ?', [s.apiKeyId, s.key]);
  let finishTakeover: () => void = () => {};
  const objectIds: string[] = [];
  const takeover = store.run(s, async (objectId, retry) => {
    expect(retry).toBe(true);
    objectIds.push(objectId);
    await new Promise<void>((resolve) => { finishTakeover = resolve; });
    return { status: 201, body: JSON.stringify({ id: objectId }) };
  });
  await sleep(100);
  releaseStalled();
  expect(await codeOf(stalled)).toBe('service_unavailable');
  // The lease the stalled request held is gone; the one the takeover holds still stands.
  expect(await codeOf(store.run(s, async () => { objectIds.push('third'); return { status: 201, body: '{}' }; }))).toBe('idempotency_key_in_use');
  finishTakeover();
  expect((await takeover).replayed).toBe(false);
  expect(objectIds).toHaveLength(1);
});
