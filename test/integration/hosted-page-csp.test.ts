// The hosted page allows the merchant's return origin in its CSP `form-action`. A return URL whose
// host a CSP cannot carry (`https://shop.example;sandbox;script-src/` parses as a URL with that
// whole text as its host) is refused with `400 parameter_invalid`, so no request can add
// directives to the page; a stored one is left out of the header (docs/hosted-page.md). A Shape B
// `callback_url` is a server destination, never in a CSP: the webhook rules judge it.
import { Payment } from '../../src/db/entities';
import { call, directPaymentBody, useTestApi } from '../helpers/api';
import { expectError, paymentRowCount } from '../helpers/payments';
import { SANDBOX_URL } from '../helpers/sandbox';


const t = useTestApi({ config: { paymentActionTtlSeconds: 120 }, merchant: { name: 'CSP Shop' }, timeoutMs: 60_000 });

const hostedA = (returnUrl: string) => ({ amount: 4999, currency: 'USD', customer_ip_address: '203.0.113.7', return_url: returnUrl });
const hostedB = (redirectUrl: string) => ({ amount: 2500, currency: 'eur', redirect_url: redirectUrl });
const B = { 'Service-Version': '2024-06-01' };

/** The directives of a CSP header, by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
}

async function pageCsp(redirectUrl: string): Promise<string> {
  const page = await fetch(redirectUrl);
  expect(page.status).toBe(200);
  return page.headers.get('content-security-policy') ?? '';
}

const INJECTIONS = [
  'https://shop.example;sandbox;script-src/',
  'https://shop.example;script-src/return',
  'https://shop.example,evil.example/return',
  'https://shop"example/return',
  "https://shop'example/return",
  'https://[2001:db8::1]/return',
  'https://shop_example.com/return',
];

describe('a return URL whose host a CSP cannot carry -> 400 parameter_invalid, nothing created', () => {
  it.each(INJECTIONS)('hosted (A) return_url %s', async (url) => {
    const res = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, body: hostedA(url) });
    expectError(res, 400, 'parameter_invalid', 'return_url');
    expect(res.json.error.message).toContain('host');
  });

  it.each(INJECTIONS)('hosted (B) redirect_url %s', async (url) => {
    const res = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, headers: B, body: hostedB(url) });
    expect({ status: res.status, code: res.json.error.code, param: res.json.error.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'redirect_url' });
  });

  it('a Direct Payment\'s return_url follows the same rule: one rule for every browser return', async () => {
    const direct = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: directPaymentBody({ return_url: INJECTIONS[0] }) });
    expectError(direct, 400, 'parameter_invalid', 'return_url');
    expect(await paymentRowCount(t.api, t.merchant.merchantId)).toBe(0);
  });
});

describe('the page header carries only the origin, as a source expression', () => {
  it('path and query characters never reach the header; an international name arrives in its ASCII form', async () => {
    const res = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, body: hostedA('https://bücher.example:8443/back;x=1,2?q="a b"&s=\'c\'') });
    expect(res.status).toBe(201);
    const csp = await pageCsp(res.json.next_action.redirect_url);
    const parsed = directives(csp);
    expect([...parsed.keys()].sort()).toEqual(['base-uri', 'default-src', 'form-action', 'frame-ancestors', 'style-src']);
    expect(parsed.get('form-action')).toEqual(["'self'", 'https://xn--bcher-kva.example:8443', SANDBOX_URL]);
    expect(parsed.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it('a stored return URL that would inject (accepted before this check) is left out of form-action', async () => {
    const res = await call(t.api, 'POST', '/v1/payments/hpp', { key: t.merchant.testKey, body: hostedA('https://shop.example/back') });
    expect(res.status).toBe(201);
    await t.api.deps.dataSource.getRepository(Payment).update({ id: res.json.id }, { return_url: INJECTIONS[0] });
    const csp = await pageCsp(res.json.next_action.redirect_url);
    const parsed = directives(csp);
    expect([...parsed.keys()].sort()).toEqual(['base-uri', 'default-src', 'form-action', 'frame-ancestors', 'style-src']);
    expect(parsed.get('form-action')).toEqual(["'self'", SANDBOX_URL]);
    expect(csp).not.toContain('script-src');
    expect(csp).not.toContain('sandbox;');
  });
});
