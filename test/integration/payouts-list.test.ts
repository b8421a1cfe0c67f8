// GET /v1/payouts: structured filters, cursors in both directions, total_count, merchant and mode
// isolation, and the literal search rules (docs/api-reference.md, "Lists").
import { call, type CallResult, createMerchant, eventually, type TestMerchant, useTestApi } from '../helpers/api';

const t = useTestApi({ merchant: { name: 'List Shop' } });
let other: TestMerchant;

interface Fixture {
  card: string;
  amount: number;
  currency: string;
  first: string;
  last: string;
  reference: number | null;
}

// Created in this order, so the list shows them newest (last) first.
const FIXTURES: Record<string, Fixture> = {
  ana: { card: '4242424242424242', amount: 2550, currency: 'EUR', first: 'Ana', last: 'Díaz', reference: 1111111111 },
  bob: { card: '5555555555554444', amount: 1000, currency: 'USD', first: 'Bob', last: 'Smith', reference: null },
  carla: { card: '4000000000000002', amount: 5000, currency: 'EUR', first: 'Carla', last: 'O\'Neil', reference: 3333333333 },
  dai: { card: '4242424242424242', amount: 2550, currency: 'JPY', first: 'Dai', last: 'Tanaka', reference: null },
  eve: { card: '4242424242424242', amount: 1234, currency: 'KWD', first: 'Eve', last: 'Adams', reference: null },
  percent: { card: '5555555555554444', amount: 999, currency: 'EUR', first: '100% Real', last: 'a_b', reference: null },
  plain: { card: '4242424242424242', amount: 1000, currency: 'EUR', first: '1000 Real', last: 'axb', reference: null },
};
const NAMES = Object.keys(FIXTURES);
const ids: Record<string, string> = {};
const byId: Record<string, string> = {};
let createdMin = 0;
let createdMax = 0;

function submit(key: string, f: Fixture): Promise<CallResult> {
  return call(t.api, 'POST', '/v1/payouts', {
    key,
    body: {
      amount: f.amount,
      currency: f.currency,
      initiator_ip_address: '198.51.100.20',
      recipient: { first_name: f.first, last_name: f.last, country: 'DE' },
      destination: { card_number: f.card },
      merchant_reference: f.reference,
    },
  });
}

function list(query: string, key = t.merchant.testKey): Promise<CallResult> {
  return call(t.api, 'GET', `/v1/payouts${query ? `?${query}` : ''}`, { key });
}

/** Names of the listed payouts, in list order. */
async function names(query: string): Promise<string[]> {
  const res = await list(query);
  expect(res.status).toBe(200);
  return res.json.data.map((p: { id: string }) => byId[p.id] ?? p.id);
}

/** Fixture names newest first, keeping only `keep`. */
function newestFirst(...keep: string[]): string[] {
  return NAMES.filter((n) => keep.includes(n)).reverse();
}

function expectSearchError(res: CallResult, param: string): void {
  expect({ status: res.status, code: res.json?.error?.code, param: res.json?.error?.param })
    .toEqual({ status: 400, code: 'invalid_search_criteria', param });
}

beforeAll(async () => {
  other = await createMerchant(t.api, { name: 'Other Shop' });
  for (const name of NAMES) {
    const res = await submit(t.merchant.testKey, FIXTURES[name]!);
    expect(res.status).toBe(201);
    ids[name] = res.json.id;
    byId[res.json.id] = name;
  }
  // Statuses only settle once; wait so status filters see the final ones.
  for (const name of NAMES) {
    await eventually(() => call(t.api, 'GET', `/v1/payouts/${ids[name]}`, { key: t.merchant.testKey }),
      (r) => r.json.status === 'SUCCEEDED' || r.json.status === 'FAILED');
  }
  const all = (await list('limit=100')).json.data as Array<{ created_at: number }>;
  createdMin = Math.min(...all.map((p) => p.created_at));
  createdMax = Math.max(...all.map((p) => p.created_at));
  const foreign = await submit(other.testKey, FIXTURES.ana!);
  expect(foreign.status).toBe(201);
  ids.other = foreign.json.id;
});

describe('envelope, order and pagination', () => {
  it('lists newest first with total_count', async () => {
    const res = await list('');
    expect(res.json).toMatchObject({ object: 'list', has_more: false, total_count: NAMES.length, url: '/v1/payouts' });
    expect(await names('')).toEqual(newestFirst(...NAMES));
  });

  it('limit pages and has_more; total_count ignores pagination', async () => {
    const res = await list('limit=2');
    expect(res.json.data).toHaveLength(2);
    expect(res.json).toMatchObject({ has_more: true, total_count: NAMES.length });
  });

  it('walks forward with starting_after and back with ending_before', async () => {
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const res = await list(`limit=3${cursor}`);
      seen.push(...res.json.data.map((p: { id: string }) => byId[p.id]));
      expect(res.json.total_count).toBe(NAMES.length);
      if (!res.json.has_more) break;
      cursor = `&starting_after=${res.json.data[res.json.data.length - 1].id}`;
    }
    expect(seen).toEqual(newestFirst(...NAMES));

    // Before the oldest: the two newer ones nearest to it, still newest first, and more beyond.
    const back = await list(`limit=2&ending_before=${ids.ana}`);
    expect(back.json.data.map((p: { id: string }) => byId[p.id])).toEqual(['carla', 'bob']);
    expect(back.json.has_more).toBe(true);
    const front = await list(`limit=2&ending_before=${ids.eve}`);
    expect(front.json.data.map((p: { id: string }) => byId[p.id])).toEqual(['plain', 'percent']);
    expect(front.json.has_more).toBe(false);
  });

  it('cursors combine with filters', async () => {
    expect(await names(`currency=EUR&starting_after=${ids.percent}`)).toEqual(['carla', 'ana']);
    expect(await names(`currency=EUR&ending_before=${ids.ana}&limit=2`)).toEqual(['percent', 'carla']);
  });

  it.each([
    ['both cursors', () => `starting_after=${ids.ana}&ending_before=${ids.bob}`, 'ending_before'],
    ['a malformed cursor', () => 'starting_after=pay_AAAAAAAAAAAAAAAAAAAAAAAA', 'starting_after'],
    ['a cursor of another merchant', () => `ending_before=${ids.other}`, 'ending_before'],
    ['an unknown cursor', () => 'starting_after=po_AAAAAAAAAAAAAAAAAAAAAAAA', 'starting_after'],
    ['limit 0', () => 'limit=0', 'limit'],
    ['limit 101', () => 'limit=101', 'limit'],
    ['limit not a number', () => 'limit=ten', 'limit'],
    ['limit twice', () => 'limit=1&limit=2', 'limit'],
    ['an unknown parameter', () => 'colour=blue', 'colour'],
    ['created without an operator', () => 'created=5', 'created'],
  ])('%s -> 400 invalid_search_criteria', async (_label, query, param) => {
    expectSearchError(await list(query()), param);
  });
});

describe('structured filters', () => {
  it('status (repeatable)', async () => {
    expect(await names('status=FAILED')).toEqual(['carla']);
    expect(await names('status=SUCCEEDED&status=FAILED')).toEqual(newestFirst(...NAMES));
    expect(await names('status=PENDING')).toEqual([]);
    expectSearchError(await list('status=succeeded'), 'status');
    expectSearchError(await list('status=SUCCEEDED&status=DONE'), 'status');
  });

  it('currency (repeatable, case-insensitive)', async () => {
    expect(await names('currency=EUR')).toEqual(newestFirst('ana', 'carla', 'percent', 'plain'));
    expect(await names('currency=eur&currency=JPY')).toEqual(newestFirst('ana', 'carla', 'dai', 'percent', 'plain'));
    expect((await list('currency=GBP')).json).toMatchObject({ data: [], total_count: 0, has_more: false });
    expectSearchError(await list('currency=EURO'), 'currency');
  });

  it('card_brand (repeatable) and card_last4', async () => {
    expect(await names('card_brand=MASTERCARD')).toEqual(newestFirst('bob', 'percent'));
    expect(await names('card_brand=VISA&card_brand=MASTERCARD')).toEqual(newestFirst(...NAMES));
    expect(await names('card_brand=AMEX')).toEqual([]);
    expect(await names('card_last4=4444')).toEqual(newestFirst('bob', 'percent'));
    expect(await names('card_last4=0002')).toEqual(['carla']);
    expectSearchError(await list('card_brand=BOGUS'), 'card_brand');
    expectSearchError(await list('card_last4=44'), 'card_last4');
    expectSearchError(await list('card_last4=4444&card_last4=4242'), 'card_last4');
  });

  it('created[gte] and created[lt]', async () => {
    expect(await names(`created[gte]=${createdMin}&created[lt]=${createdMax + 1}`)).toEqual(newestFirst(...NAMES));
    expect(await names(`created[gte]=${createdMax + 1}`)).toEqual([]);
    expect(await names(`created[lt]=${createdMin}`)).toEqual([]);
    expectSearchError(await list('created[gte]=yesterday'), 'created[gte]');
    expectSearchError(await list('created[gte]=10&created[lt]=5'), 'created[lt]');
  });

  it('amount[gte] and amount[lte] in minor units', async () => {
    expect(await names('amount[gte]=1000&amount[lte]=2550')).toEqual(newestFirst('ana', 'bob', 'dai', 'eve', 'plain'));
    expect(await names('amount[gte]=5000')).toEqual(['carla']);
    expect(await names('amount[lte]=999')).toEqual(['percent']);
    expectSearchError(await list('amount[gte]=12.5'), 'amount[gte]');
    expectSearchError(await list('amount[gte]=10&amount[lte]=5'), 'amount[lte]');
  });

  it('filters combine, and total_count counts every match', async () => {
    const res = await list('currency=EUR&card_brand=VISA&status=SUCCEEDED&limit=1');
    expect(res.json.data.map((p: { id: string }) => byId[p.id])).toEqual(['plain']);
    expect(res.json).toMatchObject({ has_more: true, total_count: 2 });
  });
});

describe('isolation between merchants and modes', () => {
  it('another merchant sees only its own payouts', async () => {
    const res = await list('', other.testKey);
    expect(res.json.total_count).toBe(1);
    expect(res.json.data.map((p: { id: string }) => p.id)).toEqual([ids.other]);
    expect(await names('')).not.toContain(ids.other);
    expect(await names(`search=${ids.other}`)).toEqual([]);
    expect((await list(`search=${ids.ana}`, other.testKey)).json.data).toEqual([]);
  });

  it('the live mode of the same merchant sees none of its test payouts', async () => {
    const res = await list('', t.merchant.liveKey);
    expect(res.json).toMatchObject({ data: [], total_count: 0, has_more: false });
    expect((await list('search=ana', t.merchant.liveKey)).json.data).toEqual([]);
  });
});

describe('search', () => {
  it.each([
    ['díaz', ['ana']],
    ['DÍAZ', ['ana']],
    ['ana díaz', ['ana']],
    ['Ana Díaz', ['ana']],
    ['o\'ne', ['carla']],
    ['O\'NEIL', ['carla']],
    ['smith', ['bob']],
  ])('names, case-insensitively: %j', async (search, expected) => {
    expect(await names(`search=${encodeURIComponent(search)}`)).toEqual(newestFirst(...expected));
  });

  it('does not fold accents: it is literal', async () => {
    expect(await names('search=diaz')).toEqual([]);
  });

  it('% and _ are literal characters', async () => {
    expect(await names(`search=${encodeURIComponent('100%')}`)).toEqual(['percent']);
    expect(await names(`search=${encodeURIComponent('%')}`)).toEqual(['percent']);
    expect(await names('search=a_b')).toEqual(['percent']);
    expect(await names('search=real')).toEqual(newestFirst('percent', 'plain'));
  });

  it('payout ids, in any case', async () => {
    expect(await names(`search=${ids.dai}`)).toEqual(['dai']);
    expect(await names(`search=${ids.dai!.toUpperCase()}`)).toEqual(['dai']);
  });

  it('merchant references', async () => {
    expect(await names('search=1111111111')).toEqual(['ana']);
    expect(await names('search=3333333333')).toEqual(['carla']);
  });

  it('exactly four digits also match the last four of the card', async () => {
    expect(await names('search=4444')).toEqual(newestFirst('bob', 'percent'));
    expect(await names('search=0002')).toEqual(['carla']);
    expect(await names('search=444')).toEqual([]);
  });

  it('with exactly one currency, a number matches an exact major-unit amount', async () => {
    expect(await names('search=25,50&currency=EUR')).toEqual(['ana']);
    expect(await names('search=25.50&currency=eur')).toEqual(['ana']);
    expect(await names('search=25.5&currency=EUR')).toEqual(['ana']);
    expect(await names('search=2550&currency=JPY')).toEqual(['dai']);
    expect(await names('search=1.234&currency=KWD')).toEqual(['eve']);
    expect(await names('search=1,234&currency=KWD')).toEqual(['eve']);
    expect(await names('search=10&currency=USD')).toEqual(['bob']);
  });

  it('without exactly one currency, numbers match only text or the last four', async () => {
    expect(await names('search=25,50')).toEqual([]);
    expect(await names('search=2550')).toEqual([]);
    expect(await names('search=2550&currency=EUR&currency=JPY')).toEqual([]);
    expect(await names('search=1234')).toEqual([]);
  });

  it('structured filters still constrain a search', async () => {
    expect(await names('search=real&amount[lte]=999')).toEqual(['percent']);
    expect(await names('search=4444&card_brand=VISA')).toEqual([]);
    expect(await names('search=4444&status=SUCCEEDED&limit=1')).toEqual(['percent']);
    expect((await list('search=4444&limit=1')).json).toMatchObject({ total_count: 2, has_more: true });
    expect(await names(`search=ana&created[gte]=${createdMax + 1}`)).toEqual([]);
  });

  it.each([
    ['empty', 'search='],
    ['twice', 'search=a&search=b'],
    ['with a control character', 'search=a%0Ab'],
    ['too long', `search=${'x'.repeat(513)}`],
  ])('a search value %s -> 400 invalid_search_criteria', async (_label, query) => {
    expectSearchError(await list(query), 'search');
  });
});
