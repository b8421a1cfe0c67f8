// Hostile requests for property-based fuzzing with fast-check: every endpoint, with bodies that
// are mutated valid requests, arbitrary JSON, malformed or oversized text, extra fields a client
// must never set (`status`, `livemode`, `merchant_id`...), odd media types, Idempotency-Key,
// Service-Version and Authorization headers, and hostile query strings and path ids. Requests go
// out through node:http, so headers and bodies arrive as written. Card numbers are only documented
// test cards or strings that are no card at all.
import http from 'node:http';
import fc from 'fast-check';
import { TEST_CARD_NUMBERS } from '../../../src/domain/cards';

export interface FuzzIds {
  /** The fuzzed merchant's own objects. */
  paymentId: string;
  /** A Payment of its own that only the Shape B refund operation is aimed at. */
  shapeBPaymentId: string;
  payoutId: string;
  hostedToken: string;
  /** Another merchant's objects. */
  foreignPaymentId: string;
  foreignPayoutId: string;
}

export interface FuzzKeys {
  test: string;
  live: string;
  revoked: string;
}

export type EndpointKind = 'create' | 'json' | 'page';

export interface FuzzRequest {
  endpoint: string;
  kind: EndpointKind;
  /** The idempotency operation of a create. */
  operation?: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** Whether the body carries a field a client must never set. */
  forbiddenField: boolean;
}

/** A JSON number (or other literal) written exactly as given, e.g. `1e400` or `-0`. */
class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson literals. */
function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, member: unknown) => {
    if (member instanceof RawJson) {
      raws.push(member.text);
      return `\u0000raw${raws.length - 1}\u0000`;
    }
    return member;
  }) ?? 'null';
  return text.replace(/"\\u0000raw(\d+)\\u0000"/g, (_m, index: string) => raws[Number(index)]!);
}

const HOSTILE_STRINGS = [
  '', ' ', '\t', '\u0000', '\ud800', '\uffff', '💳💳', 'Ω'.repeat(300), '<script>alert(1)</script>', "' OR 1=1 --", '%00', '%s%n',
  '../../etc/passwd', '${jndi:ldap://127.0.0.1/x}', '{{7*7}}', '__proto__', 'NaN', 'Infinity', '-1', '0', '1e3', ' 12 ', '0x10',
  'usd', 'USD ', 'XXX', 'ZZZ', 'usdollar', 'pay_', 'pay_' + 'A'.repeat(24), 'po_' + 'b'.repeat(24), 'null', 'true', '[]', '{}',
  'https://shop.example/return', 'javascript:alert(1)', 'http://169.254.169.254/latest', '203.0.113.7', '::1', '10.0.0.1:80',
  '203.0.113.7, 198.51.100.1', 'fe80::1%eth0',
];

const HOSTILE_NUMBERS = [
  0, -1, 1, 1.5, -0.5, 255, 256, 1000000000, 9999999999, 99999999999, 100000000000, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 1e308, -1e308, Number.MIN_VALUE,
];

const RAW_NUMBERS = ['1e400', '-1e400', '-0', '123456789012345678901234567890', '0.0000000000000000000001', '1E2', '4999.0'];

/** Not card numbers, and holding none: too short or long, letters, a Luhn-invalid number, full-width digits. */
const NOT_CARDS = ['', '4242', '12345678901234567890123', '4242424242424241', 'abcd efgh ijkl mnop', '4242-4242-4242-424x', '０１２３', '0000000000000000'];

const deep = (depth: number, leaf: unknown, asArray: boolean): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = asArray ? [value] : { a: value };
  return value;
};

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 200, maxLength: 3000 }) },
);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((text) => new RawJson(text)) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 50, max: 2000 }), fc.boolean()).map(([depth, asArray]) => deep(depth, 1, asArray)) },
);

/**
 * Documented test cards, except those whose documented answer is a provider outage (502/503 for a
 * Direct Payment, a 15 s held answer): those 5xx are the contract, not a reaction to the input.
 */
const FUZZ_CARDS = [...TEST_CARD_NUMBERS].filter((n) => !['4000005020000007', '4000005030000005', '4000007000000007'].includes(n));

const cardNumberValue = fc.oneof(
  fc.constantFrom(...FUZZ_CARDS),
  fc.constantFrom(...FUZZ_CARDS).map((n) => n.replace(/(\d{4})/g, '$1 ').trim()),
  fc.constantFrom(...NOT_CARDS),
);

/** Fields a client must never set: the server decides them. */
const FORBIDDEN_FIELDS = ['status', 'livemode', 'merchant_id', 'id', 'amount_refunded', 'amount_refundable', 'refunds', 'created_at', 'version', 'failure_code', 'integration_type', 'card', 'api_key', 'object', '__proto__', 'constructor'];

type Json = Record<string, unknown>;

function paths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return [prefix, ...Object.entries(value as Json).flatMap(([key, child]) => paths(child, [...prefix, key]))].filter((p) => p.length > 0);
}

/** A copy with the value at `path` replaced (or removed); only the objects on the path are copied. */
function setAt(target: Json, path: string[], value: unknown, remove: boolean): Json {
  const [key, ...rest] = path as [string, ...string[]];
  const copy: Json = { ...target };
  if (rest.length > 0) {
    const child = copy[key];
    copy[key] = setAt(child !== null && typeof child === 'object' && !Array.isArray(child) ? (child as Json) : {}, rest, value, remove);
  } else if (remove) {
    delete copy[key];
  } else {
    // defineProperty, so `__proto__` becomes an own field of the JSON text and not a prototype.
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

interface BodyCase {
  text: string;
  forbiddenField: boolean;
}

/** Bodies for a create whose valid form is `valid`. */
function createBody(valid: Json): fc.Arbitrary<BodyCase> {
  const fieldPaths = paths(valid);
  const ok = (text: string, forbiddenField = false): BodyCase => ({ text, forbiddenField });
  const mutated = fc.tuple(fc.constantFrom(...fieldPaths), fc.oneof(
    { weight: 4, arbitrary: hostileValue.map((value) => ({ value, remove: false })) },
    { weight: 1, arbitrary: fc.constant({ value: undefined, remove: true }) },
  )).map(([path, change]) => ok(toJson(setAt(valid, path, change.value, change.remove))));
  // Card numbers (and strings like them) only ever go into card number fields, never into free text.
  const cardPaths = fieldPaths.filter((p) => p[p.length - 1] === 'number' || p[p.length - 1] === 'card_number');
  const cardMutated = cardPaths.length
    ? fc.tuple(fc.constantFrom(...cardPaths), cardNumberValue).map(([path, value]) => ok(toJson(setAt(valid, path, value, false))))
    : mutated;
  const severalMutations = fc.array(fc.tuple(fc.constantFrom(...fieldPaths), hostileValue), { minLength: 2, maxLength: 6 })
    .map((changes) => ok(toJson(changes.reduce((body, [path, value]) => setAt(body, path, value, false), valid))));
  const forbidden = fc.tuple(fc.constantFrom(...FORBIDDEN_FIELDS), fc.oneof(hostileValue, fc.constantFrom('SUCCEEDED', true, 'mer_other', 0)), fc.constantFrom(...[[], ...fieldPaths.filter((p) => p.length === 1)]))
    .map(([field, value, under]) => ok(toJson(setAt(valid, [...(under.length ? under : []), field], value, false)), true));
  const arbitraryJson = fc.jsonValue({ maxDepth: 4 }).map((value) => ok(toJson(value)));
  const malformed = fc.constantFrom(
    '', ' ', '{', '}', '{"amount":', '{"amount": 1,}', "{'amount': 1}", 'null', '[]', '"text"', '42', 'NaN', '\ufeff{}', '{"a":1}{"b":2}',
    '{"amount": 1 /* comment */}', '{"amount": 0x10}', '\u0000', 'amount=1&currency=usd', '<xml/>', '{"__proto__": {"status": "SUCCEEDED"}}',
  ).map((text) => ok(text, text.includes('__proto__')));
  const truncated = fc.integer({ min: 1, max: 200 }).map((cut) => ok(toJson(valid).slice(0, cut)));
  const oversized = fc.constantFrom(64 * 1024 + 1, 200 * 1024, 2 * 1024 * 1024).map((size) => ok(toJson({ ...valid, description: 'x'.repeat(size) })));
  const deepBody = fc.integer({ min: 1000, max: 30_000 }).map((depth) => ok(`${'['.repeat(depth)}${']'.repeat(depth)}`));
  return fc.oneof(
    { weight: 7, arbitrary: mutated },
    { weight: 2, arbitrary: cardMutated },
    { weight: 3, arbitrary: severalMutations },
    { weight: 3, arbitrary: forbidden },
    { weight: 2, arbitrary: arbitraryJson },
    { weight: 2, arbitrary: malformed },
    { weight: 1, arbitrary: truncated },
    { weight: 1, arbitrary: oversized },
    { weight: 1, arbitrary: deepBody },
    { weight: 1, arbitrary: fc.constant(ok(toJson(valid))) },
  );
}

/** A header value as a client may send it: UTF-8 text travels as its bytes (latin1 in node's API). */
const asHeader = (text: string) => Buffer.from(text, 'utf8').toString('latin1').replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  { weight: 4, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-8', 'application/vnd.api+json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '*/*', 'application/json, text/plain',
      'application/json; charset=utf-16', 'json', '', 'application/json-patch+json', 'text/html'),
  },
  { weight: 1, arbitrary: fc.constant(null) },
);

const idempotencyKey = fc.oneof(
  { weight: 8, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'a'.repeat(255), 'b'.repeat(256), 'c'.repeat(10_000), 'fuzz-fixed-key', '\t') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }).map(asHeader) },
  { weight: 1, arbitrary: fc.tuple(fc.uuid(), fc.uuid()).map((pair) => [...pair]) },
);

const serviceVersion = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constantFrom('2025-09-01', '2024-06-01') },
  { weight: 2, arbitrary: fc.constantFrom('2024-13-45', '2025-9-1', '9999-99-99', '2025-09-01 ', 'yesterday', '', '2025-09-01T00:00:00Z', '0000-00-00') },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map(asHeader) },
);

function authorization(keys: FuzzKeys): fc.Arbitrary<string | string[] | null> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${keys.test}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${keys.live}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(null, '', 'Bearer', 'Bearer ', `bearer ${keys.test}`, `Bearer ${keys.test} `, `Bearer  ${keys.test}`, `Basic ${keys.test}`,
        `Bearer ${keys.revoked}`, `Bearer ${keys.test.slice(0, -1)}`, `Bearer ${keys.test}x`, 'Bearer svc_test_sk_' + 'A'.repeat(32), 'Bearer svc_live_sk_' + 'z'.repeat(32)),
    },
    { weight: 1, arbitrary: fc.constant([`Bearer ${keys.test}`, `Bearer ${keys.live}`]).map((pair): string[] => [...pair]) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => `Bearer ${asHeader(s)}`) },
  );
}

const extraHeaders = fc.dictionary(
  fc.constantFrom('X-Forwarded-For', 'X-HTTP-Method-Override', 'Accept', 'Accept-Charset', 'Origin', 'X-Request-Id', 'Request-Id', 'Cookie', 'Content-Encoding'),
  fc.oneof(fc.constantFrom('127.0.0.1, 10.0.0.1', 'DELETE', 'text/html', 'utf-7', 'null', 'https://evil.example', 'req_forged', 'gzip', 'session=1'), fc.string({ maxLength: 30 }).map(asHeader)),
  { maxKeys: 3 },
);

/** Percent-encoding of the UTF-8 bytes (lone surrogates, which encodeURIComponent refuses, become U+FFFD). */
function encode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

/** A path segment: an id of ours or another merchant's, a well-formed stranger, or junk (raw or encoded). */
function pathId(own: string, foreign: string, prefix: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(own, foreign, `${prefix}${'Z'.repeat(24)}`, `${prefix}${'0'.repeat(23)}`, own.toLowerCase(), `${own}x`, own.slice(0, -1)),
    fc.constantFrom('%zz', '%', '%%', '%00', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'a'.repeat(5000), '%F0%9F%92%B3', '%C0%AF', '%ED%A0%80', '.', '..'),
    fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => encode(s)),
  );
}

const QUERY_NAMES = [
  'limit', 'starting_after', 'ending_before', 'status', 'created[gte]', 'created[lt]', 'search', 'currency', 'card_brand', 'card_last4', 'amount[gte]', 'amount[lte]',
  'limit[]', 'status[]', '__proto__', 'constructor', 'created', 'expand', 'merchant_id', 'livemode', '',
];

function queryString(ids: FuzzIds): fc.Arbitrary<string> {
  const value = fc.oneof(
    fc.constantFrom('1', '0', '-1', '100', '101', '1e2', '10.5', ' 10', '99999999999999999999', 'SUCCEEDED', 'succeeded', 'PENDING', 'usd', 'USD', 'EUR', 'VISA', '4242',
      '%', '_', '%_', ids.paymentId, ids.foreignPaymentId, ids.payoutId, ids.foreignPayoutId, '1700000000', 'true', ''),
    hostileString.map((s) => String(s)),
  );
  const pair = fc.tuple(fc.constantFrom(...QUERY_NAMES), value, fc.boolean())
    .map(([name, v, encodeName]) => `${encodeName ? encode(name) : name}=${encode(v)}`);
  return fc.oneof(
    fc.array(pair, { maxLength: 6 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : '')),
    fc.constantFrom('?limit=%zz', '?%zz=1', '?&&&', '?limit', '?=', `?${'limit=1&'.repeat(500)}`, '?status=a&status=b&status=c', `?search=${'x'.repeat(5000)}`),
  );
}

export interface ValidBodies {
  payment: Json;
  hosted: Json;
  refund: Json;
  payout: Json;
  shapeBPayment: Json;
  shapeBHosted: Json;
}

const SHAPE_B = '2024-06-01';

/** One hostile request to any endpoint of the service. */
export function fuzzRequest(ids: FuzzIds, keys: FuzzKeys, valid: ValidBodies): fc.Arbitrary<FuzzRequest> {
  const common = fc.record({ auth: authorization(keys), version: serviceVersion, extra: extraHeaders });
  const headersOf = (c: { auth: string | string[] | null; version: string | null; extra: Record<string, string> }) => {
    const headers: Record<string, string | string[]> = { ...c.extra };
    if (c.auth !== null) headers.Authorization = c.auth;
    if (c.version !== null) headers['Service-Version'] = c.version;
    return headers;
  };
  /** Shape B operations mostly carry their version; the rest of the time any version header. */
  const shapeBVersion = fc.oneof({ weight: 4, arbitrary: fc.constant(SHAPE_B) }, { weight: 1, arbitrary: serviceVersion });
  const create = (endpoint: string, path: fc.Arbitrary<string>, operation: string, body: fc.Arbitrary<BodyCase>, version: fc.Arbitrary<string | null> = serviceVersion) => fc.record({
    c: common, version, path, body, type: contentType, key: idempotencyKey,
  }).map(({ c, version: v, path: p, body: b, type, key }): FuzzRequest => {
    const headers = headersOf({ ...c, version: v });
    if (type !== null) headers['Content-Type'] = type;
    if (key !== null) headers['Idempotency-Key'] = key;
    return { endpoint, kind: 'create', operation, method: 'POST', path: p, headers, body: Buffer.from(b.text, 'utf8'), forbiddenField: b.forbiddenField };
  });
  /** The Shape B refund takes no body: none, `{}`, or anything hostile. */
  const noBody = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom({ text: '', forbiddenField: false }, { text: '{}', forbiddenField: false }) },
    { weight: 2, arbitrary: createBody({ amount: 1 }) },
  );
  const read = (endpoint: string, path: fc.Arbitrary<string>) => fc.record({ c: common, path })
    .map(({ c, path: p }): FuzzRequest => ({ endpoint, kind: 'json', method: 'GET', path: p, headers: headersOf(c), forbiddenField: false }));
  const list = (endpoint: string, base: string) => read(endpoint, queryString(ids).map((q) => `${base}${q}`));

  // Each form field gets values of its own kind or junk: card numbers and CVCs never land in the name.
  const junk = hostileString.map(String);
  const checkoutForm = fc.record({
    card_number: fc.oneof(cardNumberValue, junk),
    exp: fc.oneof(fc.constantFrom('12/30', '13/99', '00/00', '1/2', '0199', ''), junk),
    cvc: fc.oneof(fc.constantFrom('737', '7373', '', '12', '12345'), junk),
    cardholder_name: fc.oneof(fc.constantFrom('Ada Lovelace', ''), junk),
    x: junk,
  }, { requiredKeys: [] }).map((fields) => Buffer.from(new URLSearchParams(fields as Record<string, string>).toString()));
  const checkout = fc.record({
    token: fc.oneof(fc.constant(ids.hostedToken), pathId(ids.hostedToken, 'A'.repeat(32), '')),
    form: fc.oneof(checkoutForm, fc.constant(Buffer.alloc(20_000, 'a'))),
    type: fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', 'multipart/form-data; boundary=x'),
    site: fc.constantFrom(null, 'same-origin', 'cross-site'),
    post: fc.boolean(),
  }).map(({ token, form, type, site, post }): FuzzRequest => ({
    endpoint: `${post ? 'POST' : 'GET'} /checkout/{token}`, kind: 'page', method: post ? 'POST' : 'GET', path: `/checkout/${token}`,
    headers: { ...(post ? { 'Content-Type': type } : {}), ...(site ? { 'Sec-Fetch-Site': site } : {}) }, body: post ? form : undefined, forbiddenField: false,
  }));
  const other = fc.record({ c: common, method: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'POST', 'GET'), path: fc.constantFrom(
    '/v1/payments', `/v1/payments/${ids.paymentId}`, `/v1/payments/${ids.paymentId}/refund`, '/v1/refunds', '/v1/payouts', `/v1/payouts/${ids.payoutId}`,
    '/v1', '/v1/', '/v2/payments', '/v1/payments/hpp/x', '/v1/health', '/internal/provider/notifications', '/v1/refunds/ref_' + 'a'.repeat(24), '/_sandbox/records', '/%zz',
  ), body: fc.option(fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(toJson(v)))) })
    .map(({ c, method, path, body }): FuzzRequest => ({
      endpoint: 'any method and path', kind: 'json', method, path, headers: { ...headersOf(c), ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ?? undefined, forbiddenField: false,
    }));

  const at = (path: string) => fc.constant(path);
  return fc.oneof(
    { weight: 5, arbitrary: create('POST /v1/payments', at('/v1/payments'), 'payments.create', createBody(valid.payment)) },
    { weight: 3, arbitrary: create('POST /v1/payments/hpp', at('/v1/payments/hpp'), 'payments.create_hosted', createBody(valid.hosted)) },
    { weight: 3, arbitrary: create('POST /v1/refunds', at('/v1/refunds'), 'refunds.create', createBody(valid.refund)) },
    { weight: 3, arbitrary: create('POST /v1/payouts', at('/v1/payouts'), 'payouts.create', createBody(valid.payout)) },
    { weight: 2, arbitrary: create('POST /v1/payments (Shape B)', at('/v1/payments'), 'payments.create', createBody(valid.shapeBPayment), shapeBVersion) },
    { weight: 2, arbitrary: create('POST /v1/payments/hpp (Shape B)', at('/v1/payments/hpp'), 'payments.create_hosted', createBody(valid.shapeBHosted), shapeBVersion) },
    {
      weight: 2,
      arbitrary: create('POST /v1/payments/{id}/refund (Shape B)', pathId(ids.shapeBPaymentId, ids.foreignPaymentId, 'pay_').map((id) => `/v1/payments/${id}/refund`),
        'payments.refund_b', noBody, shapeBVersion),
    },
    { weight: 2, arbitrary: list('GET /v1/payments', '/v1/payments') },
    { weight: 2, arbitrary: list('GET /v1/payouts', '/v1/payouts') },
    { weight: 2, arbitrary: read('GET /v1/payments/{id}', pathId(ids.paymentId, ids.foreignPaymentId, 'pay_').map((id) => `/v1/payments/${id}`)) },
    { weight: 2, arbitrary: read('GET /v1/payouts/{payout_id}', pathId(ids.payoutId, ids.foreignPayoutId, 'po_').map((id) => `/v1/payouts/${id}`)) },
    { weight: 1, arbitrary: checkout },
    { weight: 1, arbitrary: other },
  );
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Sends the request exactly as built; `null` if the connection ended without an answer. */
export function sendRaw(baseUrl: string, request: FuzzRequest, timeoutMs = 60_000): Promise<RawAnswer | null> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: RawAnswer | null) => {
      if (!settled) {
        settled = true;
        resolve(answer);
      }
    };
    // An explicit length: node would send a GET's body unframed, which is a broken request, not a hostile one.
    const headers = request.body ? { ...request.headers, 'Content-Length': String(request.body.length) } : request.headers;
    const req = http.request({
      host: url.hostname, port: url.port, method: request.method, path: request.path, headers, timeout: timeoutMs, agent: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => done(null));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    // A server that answers before reading a large body may close while we still write: the
    // answer, if one came, still counts.
    req.on('error', () => setTimeout(() => done(null), 50));
    req.end(request.body);
  });
}

/** For failure messages: the request without anything that looks like a card number or CVC. */
export function describeRequest(request: FuzzRequest): string {
  const body = request.body ? request.body.subarray(0, 300).toString('utf8') : '';
  const safe = (text: string) => text.replace(/\d[\d -]{10,}\d/g, '<digits>').replace(/"cvc"\s*:\s*"[^"]*"/g, '"cvc":"<cvc>"');
  return `${request.method} ${safe(request.path.slice(0, 200))} headers=${safe(JSON.stringify(request.headers).slice(0, 400))} body=${safe(body)}`;
}
