// Validation of POST /v1/payments (docs/api-reference.md, "Order of checks"): structural problems are
// `request_body_invalid`, well-typed values that break a rule are `parameter_invalid`, both with
// the dotted path of the field; a well-formed currency that is not enabled is 422. A rejected
// request creates nothing.
import { call, createMerchant, directPaymentBody, type TestMerchant, useTestApi } from '../helpers/api';
import { createDirectPayment, expectError, paymentRowCount } from '../helpers/payments';

/** t.merchant receives only requests that must be rejected. */
const t = useTestApi({ merchant: { name: 'Rejected Shop' } });
/** Receives the requests that must be accepted. */
let accepted: TestMerchant;
beforeAll(async () => { accepted = await createMerchant(t.api, { name: 'Accepted Shop' }); });

const REMOVE = Symbol('remove');

/** A valid body with one field (dotted path) replaced or removed. */
function bodyWith(path: string, value: unknown): Record<string, unknown> {
  const body = directPaymentBody() as Record<string, any>;
  const keys = path.split('.');
  let target = body;
  for (const key of keys.slice(0, -1)) {
    target[key] ??= {};
    target = target[key];
  }
  const last = keys[keys.length - 1]!;
  if (value === REMOVE) delete target[last];
  else target[last] = value;
  return body;
}

function post(key: string, body: unknown) {
  return call(t.api, 'POST', '/v1/payments', { key, body });
}

const REQUIRED = [
  'amount', 'currency', 'payment_method_data', 'payment_method_data.type', 'payment_method_data.card',
  'payment_method_data.card.number', 'payment_method_data.card.exp_month', 'payment_method_data.card.exp_year',
  'payment_method_data.card.cvc', 'customer_ip_address', 'return_url',
];

describe('missing or null required fields -> 400 request_body_invalid', () => {
  it.each(REQUIRED)('missing %s', async (path) => {
    expectError(await post(t.merchant.testKey, bodyWith(path, REMOVE)), 400, 'request_body_invalid', path);
  });
  it.each(REQUIRED)('null %s', async (path) => {
    expectError(await post(t.merchant.testKey, bodyWith(path, null)), 400, 'request_body_invalid', path);
  });
});

describe('wrong JSON types -> 400 request_body_invalid', () => {
  it.each<[string, unknown]>([
    ['amount', '4999'],
    ['amount', 49.99],
    ['amount', true],
    ['amount', [4999]],
    ['currency', 840],
    ['currency', { code: 'USD' }],
    ['merchant_reference', '1234567890'],
    ['merchant_reference', 1234567890.5],
    ['payment_method_data', 'card'],
    ['payment_method_data.type', 1],
    ['payment_method_data.card', []],
    ['payment_method_data.card.number', 4242424242424242],
    ['payment_method_data.card.exp_month', '12'],
    ['payment_method_data.card.exp_month', 6.5],
    ['payment_method_data.card.exp_year', '2030'],
    ['payment_method_data.card.cvc', 123],
    ['payment_method_data.card.holder_name', { first: 'Ada' }],
    ['customer_ip_address', 3405803783],
    ['return_url', { href: 'https://shop.example' }],
    ['merchant_customer_id', 42],
    ['description', ['a']],
    ['billing_details', 'ada@example.com'],
    ['billing_details.email', 1],
    ['billing_details.address', ['1 Main St']],
    ['billing_details.address.line1', 1],
  ])('%s = %j', async (path, value) => {
    expectError(await post(t.merchant.testKey, bodyWith(path, value)), 400, 'request_body_invalid', path);
  });
});

describe('unknown properties at any depth -> 400 request_body_invalid', () => {
  it.each([
    'foo', 'payment_method_data.foo', 'payment_method_data.card.foo', 'billing_details.foo', 'billing_details.address.foo',
  ])('%s', async (path) => {
    expectError(await post(t.merchant.testKey, bodyWith(path, 'bar')), 400, 'request_body_invalid', path);
  });

  it('Shape B fields are unknown in Shape A', async () => {
    expectError(await post(t.merchant.testKey, bodyWith('metadata', { a: 'b' })), 400, 'request_body_invalid', 'metadata');
    expectError(await post(t.merchant.testKey, bodyWith('card', { number: '4242424242424242' })), 400, 'request_body_invalid', 'card');
  });
});

describe('values that break a rule -> 400 parameter_invalid', () => {
  it.each<[string, unknown]>([
    ['amount', 0],
    ['amount', -1],
    ['amount', 100_000_000_000],
    ['amount', 1e20],
    ['currency', 'US'],
    ['currency', 'USDX'],
    ['currency', '12$'],
    ['currency', ''],
    ['currency', '   '],
    ['currency', 'U S D'],
    ['currency', `${' '.repeat(14)}usd`],
    ['merchant_reference', 123456789],
    ['merchant_reference', 10_000_000_000],
    ['merchant_reference', 0],
    ['merchant_reference', -1234567890],
    ['payment_method_data.type', 'bank_account'],
    ['payment_method_data.card.number', '4242424242424241'],
    ['payment_method_data.card.number', '4242 4242 4242 4242'],
    ['payment_method_data.card.number', '42424242424'],
    ['payment_method_data.card.number', '42424242424242424242'],
    ['payment_method_data.card.number', ''],
    ['payment_method_data.card.exp_month', 0],
    ['payment_method_data.card.exp_month', 13],
    ['payment_method_data.card.exp_year', 30],
    ['payment_method_data.card.exp_year', 10000],
    ['payment_method_data.card.cvc', '12'],
    ['payment_method_data.card.cvc', '12345'],
    ['payment_method_data.card.cvc', 'abc'],
    ['payment_method_data.card.holder_name', ''],
    ['payment_method_data.card.holder_name', 'x'.repeat(256)],
    ['customer_ip_address', 'shop.example'],
    ['customer_ip_address', 'localhost'],
    ['customer_ip_address', '203.0.113.7:443'],
    ['customer_ip_address', '203.0.113.7, 198.51.100.1'],
    ['customer_ip_address', '203.0.113.7,198.51.100.1'],
    ['customer_ip_address', 'fe80::1%eth0'],
    ['customer_ip_address', '[2001:db8::1]'],
    ['customer_ip_address', '[2001:db8::1]:443'],
    ['customer_ip_address', '2001:db8::/32'],
    ['customer_ip_address', '256.1.1.1'],
    ['customer_ip_address', '010.1.1.1'],
    ['customer_ip_address', '1.2'],
    ['customer_ip_address', `1111:2222:3333:4444:5555:6666:${'7'.repeat(20)}`],
    ['return_url', 'http://shop.example/return'],
    ['return_url', 'ftp://shop.example/return'],
    ['return_url', 'shop.example/return'],
    ['return_url', '/return'],
    ['return_url', 'https://user:secret@shop.example/return'],
    ['return_url', `https://shop.example/${'a'.repeat(2030)}`],
    ['merchant_customer_id', ''],
    ['merchant_customer_id', 'c'.repeat(256)],
    ['description', 'd'.repeat(501)],
    // Limits count characters (code points): 501 emoji are 501 characters, 1,002 UTF-16 units.
    ['description', '😀'.repeat(501)],
    ['payment_method_data.card.holder_name', '😀'.repeat(256)],
    ['billing_details.email', 'not-an-email'],
    ['billing_details.email', `${'a'.repeat(250)}@example.com`],
    ['billing_details.first_name', 'f'.repeat(256)],
    ['billing_details.last_name', 'l'.repeat(256)],
    ['billing_details.phone', '4155550123'],
    ['billing_details.phone', '+04155550123'],
    ['billing_details.phone', '+1'],
    ['billing_details.phone', '+1 415 555 0123'],
    ['billing_details.phone', '+1234567890123456'],
  ])('%s = %j', async (path, value) => {
    const res = await post(t.merchant.testKey, bodyWith(path, value));
    expectError(res, 400, 'parameter_invalid', path);
    // Messages name the field; they never echo card data.
    if (path.startsWith('payment_method_data.card.number') && typeof value === 'string' && value.length > 4) {
      expect(res.text).not.toContain(value);
    }
  });
});

describe('the currency', () => {
  it.each([' usd ', 'UsD', 'usd', '\tusd\n'])('%j is accepted and returned as USD', async (currency) => {
    const res = await createDirectPayment(t.api, accepted.testKey, { currency });
    expect(res.status).toBe(201);
    expect(res.json.currency).toBe('USD');
  });

  it.each(['AUD', ' aud ', 'XYZ'])('%j, well-formed but not enabled -> 422 currency_not_supported', async (currency) => {
    expectError(await post(t.merchant.testKey, bodyWith('currency', currency)), 422, 'currency_not_supported', 'currency');
  });

  it('a currency enabled for the merchant is accepted', async () => {
    const aud = await createMerchant(t.api, { currencies: 'AUD' });
    const res = await createDirectPayment(t.api, aud.testKey, { currency: 'aud' });
    expect(res.status).toBe(201);
    expect(res.json.currency).toBe('AUD');
    expectError(await post(aud.testKey, bodyWith('currency', 'USD')), 422, 'currency_not_supported', 'currency');
  });
});

describe('accepted edge values', () => {
  it.each<[string, unknown]>([
    ['customer_ip_address', '2001:db8::1'],
    ['customer_ip_address', '::1'],
    ['customer_ip_address', '::ffff:203.0.113.7'],
    ['customer_ip_address', '2001:0db8:0000:0000:0000:ff00:0042:8329'],
    ['return_url', 'http://localhost:3000/return'],
    ['return_url', 'http://127.0.0.1/return?order=1'],
    ['description', 'd'.repeat(500)],
    ['description', '😀'.repeat(500)],
    ['payment_method_data.card.holder_name', '𠀀'.repeat(255)],
    ['billing_details.first_name', '😀'.repeat(255)],
    ['merchant_customer_id', '😀'.repeat(255)],
    ['merchant_customer_id', 'c'.repeat(255)],
    ['merchant_reference', 1_000_000_000],
    ['merchant_reference', 9_999_999_999],
    ['billing_details.phone', '+442071838750'],
    ['billing_details.phone', '+123456789012345'],
    ['payment_method_data.card.holder_name', null],
    ['payment_method_data.card.exp_month', 1],
    ['amount', 1],
    ['billing_details', null],
    ['description', null],
  ])('%s = %j', async (path, value) => {
    const res = await post(accepted.testKey, bodyWith(path, value));
    expect({ status: res.status, text: res.text.slice(0, 300) }).toEqual({ status: 201, text: expect.any(String) });
  });
});

describe('test cards and live keys', () => {
  it('a test card with a live key -> 400 parameter_invalid, before the provisioning check', async () => {
    const res = await post(t.merchant.liveKey, bodyWith('payment_method_data.card.number', '4242424242424242'));
    expectError(res, 400, 'parameter_invalid', 'payment_method_data.card.number');
    expect(res.text).not.toContain('4242424242424242');
  });

  it('a localhost http return_url is refused with a live key', async () => {
    const body = { ...bodyWith('return_url', 'http://localhost:3000/return'), payment_method_data: { type: 'card', card: { ...directPaymentBody().payment_method_data.card, number: '4111111111111111' } } };
    expectError(await post(t.merchant.liveKey, body), 400, 'parameter_invalid', 'return_url');
  });

  it('a non-test card with a live key passes validation and meets the provisioning rule', async () => {
    expectError(await post(t.merchant.liveKey, bodyWith('payment_method_data.card.number', '4111111111111111')), 422, 'merchant_not_provisioned');
  });
});

describe('the body as a whole -> 400 request_body_invalid', () => {
  const raw = (rawBody: string, contentType?: string) => call(t.api, 'POST', '/v1/payments', {
    key: t.merchant.testKey, rawBody, headers: contentType ? { 'Content-Type': contentType } : {},
  });
  const valid = JSON.stringify(directPaymentBody());

  it.each([
    ['not JSON', '{"amount": 4999,'],
    ['an array', '[]'],
    ['a string', '"payment"'],
    ['a number', '42'],
    ['null', 'null'],
    ['true', 'true'],
    ['empty', ''],
  ])('%s', async (_label, body) => {
    expectError(await raw(body, 'application/json'), 400, 'request_body_invalid');
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x']])('media type %s', async (type) => {
    expectError(await raw(valid, type), 400, 'request_body_invalid');
  });

  it('no media type', async () => {
    expectError(await raw(valid), 400, 'request_body_invalid');
  });

  it('over 64 KiB, even when the JSON itself is valid', async () => {
    const padded = `${valid.slice(0, -1)}${' '.repeat(64 * 1024)}}`;
    expect(JSON.parse(padded)).toEqual(directPaymentBody());
    expectError(await raw(padded, 'application/json'), 400, 'request_body_invalid');
  });

  it('a body just under 64 KiB and a charset parameter are fine', async () => {
    const padded = `${valid.slice(0, -1)}${' '.repeat(60 * 1024)}}`;
    const res = await call(t.api, 'POST', '/v1/payments', { key: accepted.testKey, rawBody: padded, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    expect(res.status).toBe(201);
  });
});

describe('nothing is created by a rejected request', () => {
  it('no Payment rows, no vaulted cards for the rejected merchant', async () => {
    expect(await paymentRowCount(t.api, t.merchant.merchantId)).toBe(0);
    const vaulted: Array<{ n: number | string }> = await t.api.deps.dataSource.query('SELECT COUNT(*) AS n FROM card_vault WHERE merchant_id = ?', [t.merchant.merchantId]);
    expect(Number(vaulted[0]!.n)).toBe(0);
    // Validation errors never bind an Idempotency-Key; only the business-rule rejections (422)
    // claimed one.
    const claims: Array<{ state: string; response_status: number | null }> = await t.api.deps.dataSource.query(
      'SELECT i.state, i.response_status FROM idempotency_records i JOIN api_keys k ON k.id = i.api_key_id WHERE k.merchant_id = ?', [t.merchant.merchantId],
    );
    expect(claims.every((c) => c.state === 'processing' && c.response_status === null)).toBe(true);
  });
});
