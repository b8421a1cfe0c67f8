// GET /v1/payments and GET /v1/payments/{id} (docs/api-reference.md, "Lists"): newest
// first in creation order, cursors both ways, filters, stability under concurrent creates,
// invalid_search_criteria / invalid_request, and isolation across merchants and modes.
import { call, createMerchant, useTestApi } from '../helpers/api';
import { createDirectPayment, expectError, getPayment, waitForStatus } from '../helpers/payments';

/** t.merchant's payments are all created here, so the full list is known. */
const t = useTestApi({ merchant: { name: 'List Shop' } });
/** Newest first, as the list must return them. */
let all: Array<{ id: string; created_at: number; status: string }> = [];

const list = (key: string, query = '') => call(t.api, 'GET', `/v1/payments${query ? `?${query}` : ''}`, { key });
const ids = (res: { json: any }) => (res.json.data as Array<{ id: string }>).map((p) => p.id);

beforeAll(async () => {
  const cards = ['4242424242424242', '4000000000000002', '4000000000003220', '5555555555554444', '4000000000009995'];
  // One after another, so the creation order is known; several share a created_at second.
  for (let round = 0; round < 3; round += 1) {
    for (const [i, number] of cards.entries()) {
      const res = await createDirectPayment(t.api, t.merchant.testKey, { amount: 1000 + round * 10 + i }, { number });
      expect(res.status).toBe(201);
      all.unshift({ id: res.json.id, created_at: res.json.created_at, status: res.json.status });
    }
  }
}, 120_000);

describe('order and envelope', () => {
  it('newest first in creation order, in the list envelope', async () => {
    const res = await list(t.merchant.testKey, 'limit=100');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ object: 'list', has_more: false, url: '/v1/payments' });
    expect(ids(res)).toEqual(all.map((p) => p.id));
  });

  it('the default limit is 10', async () => {
    const res = await list(t.merchant.testKey);
    expect(ids(res)).toEqual(all.slice(0, 10).map((p) => p.id));
    expect(res.json.has_more).toBe(true);
  });

  it('list items are the same Payment objects as GET', async () => {
    const res = await list(t.merchant.testKey, 'limit=1');
    const one = await getPayment(t.api, t.merchant.testKey, res.json.data[0].id);
    expect(res.json.data[0]).toEqual(one.json);
  });
});

describe('cursor pagination', () => {
  it('starting_after walks forward through every Payment exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page += 1) {
      const res = await list(t.merchant.testKey, `limit=4${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      if (!res.json.has_more) break;
      cursor = seen[seen.length - 1];
    }
    expect(seen).toEqual(all.map((p) => p.id));
  });

  it('ending_before walks backward from the oldest', async () => {
    const oldest = all[all.length - 1]!.id;
    const seen: string[] = [];
    let cursor = oldest;
    for (let page = 0; page < 20; page += 1) {
      const res = await list(t.merchant.testKey, `limit=4&ending_before=${cursor}`);
      expect(res.status).toBe(200);
      const pageIds = ids(res);
      seen.unshift(...pageIds);
      if (!res.json.has_more) break;
      cursor = pageIds[0]!;
    }
    expect(seen).toEqual(all.slice(0, -1).map((p) => p.id));
  });

  it('the previous page of a page is the page before it', async () => {
    const first = await list(t.merchant.testKey, 'limit=5');
    const second = await list(t.merchant.testKey, `limit=5&starting_after=${ids(first)[4]}`);
    const back = await list(t.merchant.testKey, `limit=5&ending_before=${ids(second)[0]}`);
    expect(ids(back)).toEqual(ids(first));
    expect(back.json.has_more).toBe(false);
  });

  it('is stable while new Payments are created', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    const createdMeanwhile: string[] = [];
    for (let page = 0; page < 20; page += 1) {
      const res = await list(t.merchant.testKey, `limit=3${cursor ? `&starting_after=${cursor}` : ''}`);
      seen.push(...ids(res));
      // A new Payment between every two pages.
      const created = await createDirectPayment(t.api, t.merchant.testKey, { amount: 777 });
      createdMeanwhile.push(created.json.id);
      if (!res.json.has_more) break;
      cursor = seen[seen.length - 1];
    }
    const existing = seen.filter((id) => !createdMeanwhile.includes(id));
    expect(existing).toEqual(all.map((p) => p.id));
    expect(new Set(seen).size).toBe(seen.length);
    // The new ones list first, newest first; remember them for the tests that follow.
    const fresh = await list(t.merchant.testKey, 'limit=100');
    expect(ids(fresh)).toEqual([...createdMeanwhile].reverse().concat(all.map((p) => p.id)));
    all = (fresh.json.data as Array<{ id: string; created_at: number; status: string }>).map(({ id, created_at, status }) => ({ id, created_at, status }));
  });
});

describe('filters', () => {
  beforeAll(async () => {
    // Let every Payment reach its final status so each filter has a known answer: approved ones
    // settle, 3DS ones nobody completes expire after the action TTL.
    for (const p of all) {
      const final = p.status === 'PROCESSING' ? 'SUCCEEDED' : p.status === 'REQUIRES_ACTION' ? 'EXPIRED' : p.status;
      await waitForStatus(t.api, t.merchant.testKey, p.id, final, 30_000);
      p.status = final;
    }
  }, 90_000);

  it('one status', async () => {
    const res = await list(t.merchant.testKey, 'limit=100&status=FAILED');
    expect(ids(res)).toEqual(all.filter((p) => p.status === 'FAILED').map((p) => p.id));
    expect(res.json.data.length).toBeGreaterThan(0);
  });

  it('repeated status is a union', async () => {
    const res = await list(t.merchant.testKey, 'limit=100&status=FAILED&status=EXPIRED');
    expect(ids(res)).toEqual(all.filter((p) => p.status === 'FAILED' || p.status === 'EXPIRED').map((p) => p.id));
    expect(all.some((p) => p.status === 'EXPIRED')).toBe(true);
  });

  it('filters apply before pagination', async () => {
    const expected = all.filter((p) => p.status === 'SUCCEEDED').map((p) => p.id);
    const first = await list(t.merchant.testKey, 'limit=2&status=SUCCEEDED');
    expect(ids(first)).toEqual(expected.slice(0, 2));
    expect(first.json.has_more).toBe(true);
    const second = await list(t.merchant.testKey, `limit=2&status=SUCCEEDED&starting_after=${ids(first)[1]}`);
    expect(ids(second)).toEqual(expected.slice(2, 4));
  });

  it('created[gte] is inclusive and created[lt] exclusive', async () => {
    const pivot = all[Math.floor(all.length / 2)]!.created_at;
    const gte = await list(t.merchant.testKey, `limit=100&created[gte]=${pivot}`);
    expect(ids(gte)).toEqual(all.filter((p) => p.created_at >= pivot).map((p) => p.id));
    const lt = await list(t.merchant.testKey, `limit=100&created%5Blt%5D=${pivot}`);
    expect(ids(lt)).toEqual(all.filter((p) => p.created_at < pivot).map((p) => p.id));
    const none = await list(t.merchant.testKey, `created[gte]=${pivot}&created[lt]=${pivot}`);
    expect(none.json).toMatchObject({ data: [], has_more: false });
  });

  it('a status nobody has gives an empty page', async () => {
    const res = await list(t.merchant.testKey, 'status=PENDING&status=REQUIRES_ACTION');
    expect(res.json).toMatchObject({ object: 'list', data: [], has_more: false });
  });
});

describe('invalid list requests -> 400 invalid_search_criteria', () => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=x', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['starting_after=abc', 'starting_after'],
    ['starting_after=pay_!!', 'starting_after'],
    ['ending_before=ref_AAAAAAAAAAAAAAAAAAAAAAAA', 'ending_before'],
    ['status=succeeded', 'status'],
    ['status=DONE', 'status'],
    ['status=', 'status'],
    ['status=FAILED&status=nope', 'status'],
    ['created[gte]=yesterday', 'created[gte]'],
    ['created[lt]=-1', 'created[lt]'],
    ['created[gt]=1', 'created[gt]'],
    ['foo=bar', 'foo'],
    ['search=ada', 'search'],
  ])('%s', async (query, param) => {
    expectError(await list(t.merchant.testKey, query), 400, 'invalid_search_criteria', param);
  });

  it('both cursors together', async () => {
    expectError(await list(t.merchant.testKey, `starting_after=${all[0]!.id}&ending_before=${all[1]!.id}`), 400, 'invalid_search_criteria', 'ending_before');
  });

  it('a well-formed cursor that is not a Payment of this merchant and mode', async () => {
    const other = await createMerchant(t.api);
    const foreign = await createDirectPayment(t.api, other.testKey);
    expectError(await list(t.merchant.testKey, `starting_after=${foreign.json.id}`), 400, 'invalid_search_criteria', 'starting_after');
    expectError(await list(t.merchant.testKey, `ending_before=${foreign.json.id}`), 400, 'invalid_search_criteria', 'ending_before');
    expectError(await list(t.merchant.liveKey, `starting_after=${all[0]!.id}`), 400, 'invalid_search_criteria', 'starting_after');
    expectError(await list(t.merchant.testKey, 'starting_after=pay_AAAAAAAAAAAAAAAAAAAAAAAA'), 400, 'invalid_search_criteria', 'starting_after');
  });
});

describe('isolation across merchants and modes', () => {
  it('another merchant and the live mode see none of these Payments', async () => {
    const other = await createMerchant(t.api);
    await createDirectPayment(t.api, other.testKey);
    const otherList = await list(other.testKey, 'limit=100');
    expect(ids(otherList)).toHaveLength(1);
    expect(ids(otherList).some((id) => all.some((p) => p.id === id))).toBe(false);
    const live = await list(t.merchant.liveKey, 'limit=100');
    expect(live.json).toEqual({ object: 'list', data: [], has_more: false, url: '/v1/payments' });
  });
});

describe('GET /v1/payments/{id}', () => {
  it.each(['abc', 'pay_short', 'pay_AAAAAAAAAAAAAAAAAAAAAAA!', 'ref_AAAAAAAAAAAAAAAAAAAAAAAA', 'pay_AAAAAAAAAAAAAAAAAAAAAAAAA'])('malformed id %s -> 400 invalid_request', async (id) => {
    const res = await getPayment(t.api, t.merchant.testKey, encodeURIComponent(id));
    expectError(res, 400, 'invalid_request', 'id');
  });

  it("another merchant's id -> 404 object_not_found", async () => {
    const other = await createMerchant(t.api);
    expectError(await getPayment(t.api, other.testKey, all[0]!.id), 404, 'object_not_found', 'id');
  });

  it("the other mode's key -> 404 object_not_found", async () => {
    expectError(await getPayment(t.api, t.merchant.liveKey, all[0]!.id), 404, 'object_not_found', 'id');
  });

  it('a well-formed id nobody has -> 404 object_not_found', async () => {
    expectError(await getPayment(t.api, t.merchant.testKey, 'pay_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'object_not_found', 'id');
  });

  it('authentication comes first', async () => {
    expectError(await call(t.api, 'GET', '/v1/payments/abc'), 401, 'invalid_api_key');
  });
});
