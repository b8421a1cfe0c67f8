// Payouts: submission with every payout test card (docs/quickstart.md), uncertain provider answers kept
// PENDING and resolved, validation and error precedence, idempotent identity, retrieval, and card
// data kept out of the database, histories and logs. Real MariaDB, Temporal, sandbox and worker.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { adminOps, call, type CallResult, createMerchant, eventually, startTestApi, useTestApi } from '../helpers/api';
import { TEST_LOG_DIR } from '../helpers/processes';
import { sandboxControl } from '../helpers/sandbox';
import { historyText } from '../helpers/scan';
import { TEST_ENV } from '../helpers/test-env';


const t = useTestApi({ merchant: { name: 'Payout Shop' } });

const PAYOUT_ID = /^po_[A-Za-z0-9]{24}$/;
const TERMINAL = ['SUCCEEDED', 'FAILED'];
const CARDS_USED = new Set<string>();

function payoutBody(cardNumber = '4242424242424242', overrides: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) {
  CARDS_USED.add(cardNumber);
  return {
    amount: 2500,
    currency: 'EUR',
    initiator_ip_address: '203.0.113.7',
    recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES', ...recipient },
    destination: { card_number: cardNumber },
    merchant_reference: 1234567890,
    ...overrides,
  };
}

function submit(body: unknown, options: { key?: string; idempotencyKey?: string } = {}): Promise<CallResult> {
  return call(t.api, 'POST', '/v1/payouts', { key: options.key ?? t.merchant.testKey, body, idempotencyKey: options.idempotencyKey });
}

function retrieve(id: string, key = t.merchant.testKey): Promise<CallResult> {
  return call(t.api, 'GET', `/v1/payouts/${id}`, { key });
}

async function terminal(id: string): Promise<any> {
  const res = await eventually(() => retrieve(id), (r) => r.status === 200 && TERMINAL.includes(r.json.status), 45_000, 250);
  return res.json;
}

async function providerPayouts(reference: string): Promise<Array<{ idempotency_key: string; status: string }>> {
  const res = await sandboxControl(`/_sandbox/records?reference=${reference}`);
  return ((await res.json()) as { payouts: Array<{ idempotency_key: string; status: string }> }).payouts;
}

function expectError(res: CallResult, status: number, code: string, param?: string): void {
  expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status, code });
  if (param !== undefined) expect(res.json.error.param).toBe(param);
}

describe('submission per test card', () => {
  it.each([
    ['4242424242424242', 'VISA', '4242'],
    ['5555555555554444', 'MASTERCARD', '4444'],
  ])('%s -> 201 PROCESSING, then SUCCEEDED', async (card, brand, last4) => {
    const res = await submit(payoutBody(card));
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.stringMatching(PAYOUT_ID),
      amount: 2500,
      currency: 'EUR',
      status: 'PROCESSING',
      merchant_reference: 1234567890,
      recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' },
      destination: { brand, last4, country: 'US' },
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      completed_at: null,
      livemode: false,
    });
    const done = await terminal(res.json.id);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.completed_at).toEqual(expect.any(Number));
    expect(done).not.toHaveProperty('failure_code');
    expect(done).not.toHaveProperty('failure_message');
    expect(await providerPayouts(res.json.id)).toEqual([expect.objectContaining({ idempotency_key: `${res.json.id}:payout`, status: 'succeeded' })]);
  });

  it.each([
    ['4000000000000002', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds'],
  ])('%s -> 201 FAILED %s at once', async (card, failureCode) => {
    const res = await submit(payoutBody(card));
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: 'FAILED', failure_code: failureCode, failure_message: expect.any(String), completed_at: expect.any(Number) });
    expect(await providerPayouts(res.json.id)).toHaveLength(1);
  });

  it.each([
    ['4000004290000003', 'rate limited'],
    ['5555554290000003', 'rate limited (Mastercard)'],
    ['4000005020000007', '502 after acting'],
    ['4000005030000005', '503'],
  ])('%s (%s) -> 201 PENDING, then SUCCEEDED with exactly one provider payout', async (card) => {
    const res = await submit(payoutBody(card));
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('PENDING');
    expect(res.json.completed_at).toBeNull();
    expect(res.json).not.toHaveProperty('failure_code');
    const done = await terminal(res.json.id);
    expect(done.status).toBe('SUCCEEDED');
    expect(await providerPayouts(res.json.id)).toEqual([expect.objectContaining({ idempotency_key: `${res.json.id}:payout`, status: 'succeeded' })]);

    // The read model and the search attributes record the look-ups that resolved it.
    const [row] = await t.api.deps.dataSource.query('SELECT poll_attempts, last_polled_at FROM payouts WHERE id = ?', [res.json.id]);
    expect(Number(row.poll_attempts)).toBeGreaterThanOrEqual(1);
    expect(Number(row.last_polled_at)).toBeGreaterThan(0);
    const description = await t.api.deps.temporal.workflow.getHandle(res.json.id).describe();
    const attributes = description.searchAttributes as Record<string, unknown[]>;
    expect(attributes.ObjectType).toEqual(['payout']);
    expect(attributes.ObjectStatus).toEqual(['SUCCEEDED']);
    expect(attributes.MerchantId).toEqual([t.merchant.merchantId]);
    expect(attributes.Livemode).toEqual([false]);
    expect(attributes.AmountMinor).toEqual([2500]);
    expect(attributes.Currency).toEqual(['EUR']);
    expect(Number(attributes.PollAttempts![0])).toBe(Number(row.poll_attempts));
    expect(attributes.LastPolledAt).toHaveLength(1);
  });

  it('4000007000000007 (the provider holds its answer back 15 s) -> 201 PENDING within 2 s, GET shows it at once, then SUCCEEDED under the same provider key', async () => {
    const started = Date.now();
    const res = await submit(payoutBody('4000007000000007'));
    const tookMs = Date.now() - started;
    const right = await retrieve(res.json.id);
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('PENDING');
    expect(res.json.completed_at).toBeNull();
    expect(tookMs).toBeLessThan(2000);
    // The answer is in the read model before the 201: GET shows it, or a later state of the payout.
    expect(right.status).toBe(200);
    if (right.json.status === 'PENDING') expect(right.json).toEqual(res.json);
    else expect(right.json.updated_at).toBeGreaterThanOrEqual(res.json.updated_at);

    const done = await terminal(res.json.id);
    expect(done.status).toBe('SUCCEEDED');
    // The submission went on after the answer, under the key of the first attempt: one provider payout.
    expect(await providerPayouts(res.json.id)).toEqual([expect.objectContaining({ idempotency_key: `${res.json.id}:payout`, status: 'succeeded' })]);
    const description = await t.api.deps.temporal.workflow.getHandle(res.json.id).describe();
    expect((description.searchAttributes as Record<string, unknown[]>).ObjectStatus).toEqual(['SUCCEEDED']);
  });

  it('4000007100000006 -> 201 PENDING, then FAILED processor_unavailable', async () => {
    const res = await submit(payoutBody('4000007100000006'));
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('PENDING');
    const done = await terminal(res.json.id);
    expect(done).toMatchObject({ status: 'FAILED', failure_code: 'processor_unavailable', failure_message: expect.any(String), completed_at: expect.any(Number) });
    expect(await providerPayouts(res.json.id)).toHaveLength(1);
  });

  it.each([
    ['378282246310005', 'AMEX'],
    ['6011111111111117', 'DISCOVER'],
  ])('%s (%s) -> 422 unsupported_card, nothing sent to the provider', async (card) => {
    const res = await submit(payoutBody(card));
    expectError(res, 422, 'unsupported_card', 'destination.card_number');
    expect(res.text).not.toContain(card);
  });
});

describe('validation and precedence', () => {
  it.each([
    ['Luhn failure', '4242424242424241'],
    ['too short', '42424242'],
    ['too long', '42424242424242424242'],
    ['separators', '4242-4242-4242-4242'],
    ['empty', ''],
  ])('destination card number with %s -> 422 invalid_card', async (_label, card) => {
    const res = await submit(payoutBody(card));
    expectError(res, 422, 'invalid_card', 'destination.card_number');
    if (card) expect(res.text).not.toContain(card);
  });

  it('a destination card number that is not a string -> 400 request_body_invalid', async () => {
    expectError(await submit(payoutBody(4242424242424242 as unknown as string)), 400, 'request_body_invalid', 'destination.card_number');
  });

  it.each([
    ['missing amount', { amount: undefined }, 'request_body_invalid', 'amount'],
    ['amount as a string', { amount: '2500' }, 'request_body_invalid', 'amount'],
    ['fractional amount', { amount: 25.5 }, 'request_body_invalid', 'amount'],
    ['zero amount', { amount: 0 }, 'parameter_invalid', 'amount'],
    ['malformed currency', { currency: 'EURO' }, 'parameter_invalid', 'currency'],
    ['missing initiator IP', { initiator_ip_address: undefined }, 'request_body_invalid', 'initiator_ip_address'],
    ['IP with a port', { initiator_ip_address: '203.0.113.7:443' }, 'parameter_invalid', 'initiator_ip_address'],
    ['host name as IP', { initiator_ip_address: 'example.com' }, 'parameter_invalid', 'initiator_ip_address'],
    ['short merchant reference', { merchant_reference: 12345 }, 'parameter_invalid', 'merchant_reference'],
    ['unknown top-level field', { description: 'x' }, 'request_body_invalid', 'description'],
    ['missing destination', { destination: undefined }, 'request_body_invalid', 'destination'],
    ['unknown destination field', { destination: { card_number: '4242424242424242', exp_month: 1 } }, 'request_body_invalid', 'destination.exp_month'],
    ['missing recipient', { recipient: undefined }, 'request_body_invalid', 'recipient'],
  ])('%s -> 400 %s', async (_label, overrides, code, param) => {
    expectError(await submit(payoutBody('4242424242424242', overrides)), 400, code, param);
  });

  it.each([
    ['empty first name', { first_name: '' }, 'parameter_invalid', 'recipient.first_name'],
    ['blank first name', { first_name: '   ' }, 'parameter_invalid', 'recipient.first_name'],
    ['256-character last name', { last_name: 'x'.repeat(256) }, 'parameter_invalid', 'recipient.last_name'],
    ['null last name', { last_name: null }, 'request_body_invalid', 'recipient.last_name'],
    ['numeric first name', { first_name: 7 }, 'request_body_invalid', 'recipient.first_name'],
    ['missing country', { country: undefined }, 'request_body_invalid', 'recipient.country'],
    ['three-letter country', { country: 'ESP' }, 'parameter_invalid', 'recipient.country'],
    ['unknown recipient field', { email: 'a@b.c' }, 'request_body_invalid', 'recipient.email'],
  ])('%s -> 400 %s', async (_label, recipient, code, param) => {
    expectError(await submit(payoutBody('4242424242424242', {}, recipient)), 400, code, param);
  });

  it('no Idempotency-Key -> 400 parameter_missing', async () => {
    const res = await call(t.api, 'POST', '/v1/payouts', { key: t.merchant.testKey, body: payoutBody(), idempotencyKey: null });
    expectError(res, 400, 'parameter_missing', 'Idempotency-Key');
  });

  it('a currency the merchant has not enabled -> 422 currency_not_supported', async () => {
    const usdOnly = await createMerchant(t.api, { currencies: 'USD' });
    expectError(await submit(payoutBody(), { key: usdOnly.testKey }), 422, 'currency_not_supported', 'currency');
  });

  it('payouts switched off -> 403 payout_submission_unavailable, before the body is read', async () => {
    const other = await createMerchant(t.api);
    await adminOps(t.api).updateMerchant(other.merchantId, { payouts: false });
    expectError(await submit({ not: 'a payout' }, { key: other.testKey }), 403, 'payout_submission_unavailable');
  });

  it('not provisioned -> 422 merchant_not_provisioned', async () => {
    const other = await createMerchant(t.api);
    await adminOps(t.api).updateMerchant(other.merchantId, { provisioned: false });
    expectError(await submit(payoutBody(), { key: other.testKey }), 422, 'merchant_not_provisioned');
  });

  it('a test card with a live key -> 422 invalid_card', async () => {
    const liveApi = await startTestApi({ liveProviderUrl: `http://127.0.0.1:${TEST_ENV.sandboxPort}` });
    try {
      const res = await call(liveApi, 'POST', '/v1/payouts', { key: t.merchant.liveKey, body: payoutBody('4242424242424242') });
      expectError(res, 422, 'invalid_card', 'destination.card_number');
    } finally {
      await liveApi.close();
    }
  });

  it('business-rule errors come after the idempotency state: a reused key with an ineligible card -> 409', async () => {
    const idempotencyKey = randomUUID();
    expect((await submit(payoutBody(), { idempotencyKey })).status).toBe(201);
    expectError(await submit(payoutBody('378282246310005'), { idempotencyKey }), 409, 'idempotency_key_reused', 'Idempotency-Key');
  });

  it('an error is not saved: the same key with a corrected request is a different request', async () => {
    const idempotencyKey = randomUUID();
    expectError(await submit(payoutBody('4242424242424242', { currency: 'XXX' }), { idempotencyKey }), 422, 'currency_not_supported');
    expectError(await submit(payoutBody(), { idempotencyKey }), 409, 'idempotency_key_reused');
  });
});

describe('recipient names are kept exactly as submitted', () => {
  it.each([
    ['  O\'Brien ', 'Díaz'],
    ['Zoë', '  van der Berg  '],
    ['\tJosé', 'Ñúñez\u00a0'],
  ])('%j %j', async (firstName, lastName) => {
    const res = await submit(payoutBody('4242424242424242', {}, { first_name: firstName, last_name: lastName }));
    expect(res.status).toBe(201);
    const expected = { first_name: firstName, last_name: lastName, country: 'ES' };
    expect(res.json.recipient).toEqual(expected);
    expect((await retrieve(res.json.id)).json.recipient).toEqual(expected);
    const list = await call(t.api, 'GET', `/v1/payouts?search=${encodeURIComponent(res.json.id)}`, { key: t.merchant.testKey });
    expect(list.json.data.map((p: any) => p.recipient)).toEqual([expected]);
  });
});

describe('name lengths count characters, at the API and at the acquirer', () => {
  it('255 emoji (510 UTF-16 units) in each name: accepted, and the acquirer takes the payout as any other', async () => {
    const name = '😀'.repeat(255);
    const res = await submit(payoutBody('4242424242424242', {}, { first_name: name, last_name: name }));
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('PROCESSING');
    expect(res.json.recipient.first_name).toBe(name);
    expect(await providerPayouts(res.json.id)).toHaveLength(1);
  });

  it('256 emoji are one too many', async () => {
    expectError(await submit(payoutBody('4242424242424242', {}, { first_name: '😀'.repeat(256) })), 400, 'parameter_invalid', 'recipient.first_name');
  });
});

describe('idempotent identity', () => {
  it('canonical IP, country and currency forms replay the saved response', async () => {
    const idempotencyKey = randomUUID();
    const first = await submit(payoutBody('4242424242424242', { initiator_ip_address: '2001:DB8::1', currency: 'eur' }, { country: 'es' }), { idempotencyKey });
    expect(first.status).toBe(201);
    expect(first.json.recipient.country).toBe('ES');
    expect(first.json.currency).toBe('EUR');
    const replay = await submit(payoutBody('4242424242424242', { initiator_ip_address: '2001:db8:0:0:0:0:0:1', currency: ' EUR ' }, { country: 'ES' }), { idempotencyKey });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await providerPayouts(first.json.id)).toHaveLength(1);
  });

  it.each([
    ['a name with a trailing space', {}, { first_name: 'Ana ' }],
    ['another last name', {}, { last_name: 'Diaz' }],
    ['another destination card', { destination: { card_number: '5555555555554444' } }, {}],
    ['another IP', { initiator_ip_address: '2001:db8::2' }, {}],
    ['another country', {}, { country: 'PT' }],
    ['another merchant reference', { merchant_reference: 1234567891 }, {}],
  ])('the same key with %s -> 409 idempotency_key_reused', async (_label, overrides, recipient) => {
    const idempotencyKey = randomUUID();
    expect((await submit(payoutBody('4242424242424242', { initiator_ip_address: '2001:DB8::1' }), { idempotencyKey })).status).toBe(201);
    const changed = await submit(payoutBody('4242424242424242', { initiator_ip_address: '2001:DB8::1', ...overrides }, recipient), { idempotencyKey });
    expectError(changed, 409, 'idempotency_key_reused', 'Idempotency-Key');
  });

  it('a replay after the payout moved on still shows the creation response', async () => {
    const idempotencyKey = randomUUID();
    const first = await submit(payoutBody('4000004290000003'), { idempotencyKey });
    expect(first.json.status).toBe('PENDING');
    expect((await terminal(first.json.id)).status).toBe('SUCCEEDED');
    const replay = await submit(payoutBody('4000004290000003'), { idempotencyKey });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.json.status).toBe('PENDING');
    expect(await providerPayouts(first.json.id)).toHaveLength(1);
  });

  it('two keys with the same body are two payouts', async () => {
    const a = await submit(payoutBody());
    const b = await submit(payoutBody());
    expect(a.json.id).not.toBe(b.json.id);
  });
});

describe('GET /v1/payouts/{payout_id}', () => {
  let payoutId: string;
  beforeAll(async () => {
    payoutId = (await submit(payoutBody())).json.id;
  });

  it('returns the latest recorded payout', async () => {
    const done = await terminal(payoutId);
    expect(done.id).toBe(payoutId);
    expect(done.status).toBe('SUCCEEDED');
  });

  it.each([['po_short'], ['pay_AAAAAAAAAAAAAAAAAAAAAAAA'], ['po_AAAAAAAAAAAAAAAAAAAAAAA-']])('malformed id %s -> 400 invalid_request', async (id) => {
    expectError(await retrieve(id), 400, 'invalid_request', 'payout_id');
  });

  it('an unknown id -> 404 object_not_found', async () => {
    expectError(await retrieve('po_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'object_not_found');
  });

  it('another merchant, or the live mode of the same merchant -> 404 object_not_found', async () => {
    const other = await createMerchant(t.api);
    expectError(await retrieve(payoutId, other.testKey), 404, 'object_not_found');
    expectError(await retrieve(payoutId, t.merchant.liveKey), 404, 'object_not_found');
  });
});

describe('card data stays out of storage, histories and logs', () => {
  it('the vault entry is shredded once terminal; rows, histories and logs never hold the number', async () => {
    const card = '5555555555554444';
    const res = await submit(payoutBody(card, { merchant_reference: 9876543210 }));
    await terminal(res.json.id);
    const token = `tok_${res.json.id.slice(3)}`;
    await eventually(() => t.api.deps.dataSource.query('SELECT token FROM card_vault WHERE token = ?', [token]), (rows: unknown[]) => rows.length === 0);

    const rows = await t.api.deps.dataSource.query('SELECT * FROM payouts WHERE id = ?', [res.json.id]);
    const records = await t.api.deps.dataSource.query('SELECT * FROM idempotency_records WHERE object_id = ?', [res.json.id]);
    // Payloads decrypted: the payout and its merchant reference are readable.
    const history = await historyText(t.api.deps.temporal, res.json.id);
    expect(history).toContain(res.json.id);
    expect(history).toContain('9876543210');
    const dumps = [JSON.stringify(rows), JSON.stringify(records), history];
    for (const file of ['api.log', 'worker.log']) {
      const logPath = path.join(TEST_LOG_DIR, file);
      if (fs.existsSync(logPath)) dumps.push(fs.readFileSync(logPath, 'utf8'));
    }
    for (const dump of dumps) {
      for (const number of CARDS_USED) if (number.length >= 12) expect(dump).not.toContain(number);
    }
  });
});
