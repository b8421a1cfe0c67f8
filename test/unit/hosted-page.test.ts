// The hosted page's pure parts: form checks, HTML rendering, headers, return URL, state pages.
import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { hostedPageOpen, parseCardForm, parseExpiry, parseUrlEncodedForm } from '../../src/domain/hosted-page';
import { STYLE_SOURCE, pageSecurityHeaders } from '../../src/api/hosted-page/html';
import { escapeHtml } from '../../src/web/html';
import { renderCheckoutForm, renderStatusPage } from '../../src/api/hosted-page/pages';
import { merchantReturnUrl } from '../../src/services/return-url';
import { closedPaymentPage } from '../../src/api/hosted-page/states';
import type { PaymentView } from '../../src/domain/payment';

const NOW = new Date(Date.UTC(2026, 4, 15));
const form = (fields: Record<string, string>) => new URLSearchParams(fields);
const VALID = { card_number: '4242 4242 4242 4242', exp: '12/30', cvc: '123', cardholder_name: 'Ada Lovelace' };
const heading = { merchantName: 'Tea & Co <Ltd>', amount: '$49.99', description: 'Order #42', testMode: true };

describe('parseCardForm', () => {
  it('accepts a valid card, stripping spaces and hyphens from the number', () => {
    const result = parseCardForm(form({ ...VALID, card_number: '4242-4242 4242-4242' }), { livemode: false, now: NOW });
    expect(result).toEqual({ ok: true, card: { number: '4242424242424242', cvc: '123', expMonth: 12, expYear: 2030, holderName: 'Ada Lovelace' } });
  });

  it.each([
    ['card_number', '', 'Enter your card number.'],
    ['card_number', '4242 4242', 'Enter a card number of 12 to 19 digits.'],
    ['card_number', '4242424242424241', 'This card number is not valid. Check it and try again.'],
    ['card_number', '4242abcd42424242', 'Enter a card number of 12 to 19 digits.'],
    ['exp', '', 'Enter the expiry date.'],
    ['exp', '2030-12', 'Enter the expiry date as MM/YY.'],
    ['exp', '13/30', 'The expiry month must be between 01 and 12.'],
    ['exp', '00/30', 'The expiry month must be between 01 and 12.'],
    ['exp', '04/26', 'This expiry date is in the past. Check the date on your card.'],
    ['cvc', '', 'Enter the security code.'],
    ['cvc', '12', 'The security code is the 3 or 4 digits on your card.'],
    ['cvc', '12345', 'The security code is the 3 or 4 digits on your card.'],
    ['cardholder_name', '   ', 'Enter the name on the card.'],
    ['cardholder_name', 'x'.repeat(256), 'The name can be at most 255 characters.'],
    ['cardholder_name', 'Ada\u0007', 'The name contains characters that are not allowed.'],
  ])('%s %j -> %s', (name, value, message) => {
    const result = parseCardForm(form({ ...VALID, [name]: value }), { livemode: false, now: NOW });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual({ [name]: message });
  });

  it('keeps only the expiry and the name for a re-render, never the card number or CVC', () => {
    const result = parseCardForm(form({ ...VALID, card_number: '4242424242424241' }), { livemode: false, now: NOW });
    expect(result).toEqual({ ok: false, errors: { card_number: expect.any(String) }, values: { exp: '12/30', cardholder_name: 'Ada Lovelace' } });
  });

  it('reports every invalid field at once; missing fields count as empty', () => {
    const result = parseCardForm(form({}), { livemode: false, now: NOW });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.errors).sort()).toEqual(['card_number', 'cardholder_name', 'cvc', 'exp']);
  });

  it('the current month is still valid', () => {
    expect(parseCardForm(form({ ...VALID, exp: '05/26' }), { livemode: false, now: NOW }).ok).toBe(true);
  });

  it('keeps a name of emoji whole: a cut at 300 UTF-16 units would leave half of one', () => {
    const name = `a${'😀'.repeat(150)}`;
    const result = parseCardForm(form({ ...VALID, cardholder_name: name }), { livemode: false, now: NOW });
    expect(result.ok && result.card.holderName).toBe(name);
  });

  it('refuses test cards on a live payment', () => {
    const result = parseCardForm(form(VALID), { livemode: true, now: NOW });
    expect(result.ok).toBe(false);
    expect(parseCardForm(form({ ...VALID, card_number: '4111111111111111' }), { livemode: true, now: NOW }).ok).toBe(true);
  });
});

describe('parseUrlEncodedForm', () => {
  it('reads what URLSearchParams reads when every escape is UTF-8', () => {
    const text = 'cardholder_name=Zo%C3%AB+%F0%9F%92%B3&exp=12%2F30&empty=&bare&a=1&a=2&&x=%2B';
    expect([...parseUrlEncodedForm(text)!]).toEqual([...new URLSearchParams(text)]);
  });

  it.each([
    ['an encoded surrogate', 'cardholder_name=Ada%ED%A0%80'],
    ['a byte that starts no UTF-8 sequence', 'cardholder_name=Ada%FF'],
    ['a truncated sequence', 'cardholder_name=Ada%C3'],
    ['a malformed escape', 'cardholder_name=Ada%zz'],
    ['a malformed escape in a name', 'card%zz=1'],
  ])('%s -> null (URLSearchParams would read U+FFFD)', (_label, text) => {
    expect(parseUrlEncodedForm(text)).toBeNull();
  });
});

describe('parseExpiry', () => {
  it.each([
    ['12/30', { month: 12, year: 2030 }],
    ['1/2031', { month: 1, year: 2031 }],
    ['07 / 29', { month: 7, year: 2029 }],
    ['0729', { month: 7, year: 2029 }],
  ])('%s', (text, expected) => expect(parseExpiry(text)).toEqual(expected));

  it.each([['12'], ['12/3'], ['123/30'], ['12-30'], ['12/030'], ['a/b']])('rejects %s', (text) => expect(parseExpiry(text)).toBeNull());
});

describe('renderCheckoutForm', () => {
  const billing = { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', phone: '+441234567890', address: { line1: '12 Analytical St', city: 'London', postal_code: 'N1 9GU', country: 'GB' } };

  it('shows merchant, amount, billing details and a plain POST form with labelled, autocompleting fields', () => {
    const html = renderCheckoutForm({ heading, billing });
    expect(html).toContain('Tea &amp; Co &lt;Ltd&gt;');
    expect(html).not.toContain('<Ltd>');
    expect(html).toContain('$49.99');
    expect(html).toContain('Order #42');
    expect(html).toContain('Test mode');
    expect(html).toContain('ada@example.com');
    expect(html).toContain('12 Analytical St, N1 9GU London, GB');
    expect(html).toMatch(/<form method="post" novalidate>/);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/ style=/);
    for (const [name, autocomplete] of [['card_number', 'cc-number'], ['exp', 'cc-exp'], ['cvc', 'cc-csc'], ['cardholder_name', 'cc-name']]) {
      expect(html).toContain(`<label for="${name}">`);
      expect(html).toMatch(new RegExp(`<input id="${name}" name="${name}"[^>]*autocomplete="${autocomplete}"`));
    }
    // The cardholder name starts as the billing name.
    expect(html).toMatch(/<input id="cardholder_name"[^>]*value="Ada Lovelace"/);
    expect(html).toContain('Pay $49.99');
  });

  it('marks invalid fields and links them to their messages', () => {
    const html = renderCheckoutForm({ heading, billing: null, errors: { card_number: 'This card number is not valid.' }, values: { exp: '12/30', cardholder_name: 'G "Grace" H' } });
    expect(html).toMatch(/<input id="card_number"[^>]*aria-describedby="card_number-error" aria-invalid="true"/);
    expect(html).toContain('<p class="field-error" id="card_number-error">');
    expect(html).toContain('role="alert"');
    expect(html).toContain('<a href="#card_number">This card number is not valid.</a>');
    expect(html).toMatch(/<input id="exp"[^>]*aria-describedby="exp-hint"[^>]*value="12\/30"/);
    expect(html).not.toMatch(/<input id="exp"[^>]*aria-invalid/);
    expect(html).toContain('value="G &quot;Grace&quot; H"');
    expect(html).not.toMatch(/<input id="card_number"[^>]*value=/);
  });

  it('shows a notice for a problem with the whole attempt', () => {
    expect(renderCheckoutForm({ heading, billing: null, notice: 'Please try again in a moment.' })).toContain('Please try again in a moment.');
  });
});

describe('pageSecurityHeaders', () => {
  it('allows no script, only the page stylesheet, and form posts to self and the given origins', () => {
    const headers = pageSecurityHeaders(['https://shop.example', 'http://127.0.0.1:3100', 'https://shop.example']);
    expect(headers['Content-Security-Policy']).toBe(
      `default-src 'none'; style-src ${STYLE_SOURCE}; form-action 'self' https://shop.example http://127.0.0.1:3100; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(headers).toMatchObject({ 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' });
  });

  it('the style hash is the hash of the inline stylesheet the pages carry', () => {
    const html = renderStatusPage({ tone: 'problem', title: 'x', message: 'y' });
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(STYLE_SOURCE).toBe(`'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  });
});

describe('merchantReturnUrl', () => {
  const shapeA = { status: 'PROCESSING', refunded_at: null, api_version: '2025-09-01' } as const;
  const shapeB = { ...shapeA, api_version: '2024-06-01' } as const;

  it('adds payment_id and keeps the merchant query', () => {
    expect(merchantReturnUrl({ id: 'pay_1', return_url: 'https://shop.example/back?order=7#top', ...shapeA })).toBe('https://shop.example/back?order=7&payment_id=pay_1#top');
    expect(merchantReturnUrl({ id: 'pay_1', return_url: null, ...shapeA })).toBeNull();
  });

  it('adds the Shape B status for a Payment created under Service-Version 2024-06-01', () => {
    expect(merchantReturnUrl({ id: 'pay_1', return_url: 'https://shop.example/back?order=7', ...shapeB })).toBe('https://shop.example/back?order=7&payment_id=pay_1&status=pending');
    expect(merchantReturnUrl({ id: 'pay_1', return_url: 'https://shop.example/back', ...shapeB, status: 'FAILED' })).toBe('https://shop.example/back?payment_id=pay_1&status=failed');
    expect(merchantReturnUrl({ id: 'pay_1', return_url: 'https://shop.example/back', ...shapeA, api_version: null, status: 'SUCCEEDED' })).toBe('https://shop.example/back?payment_id=pay_1');
  });
});

describe('states', () => {
  const payment = (patch: Partial<PaymentView>) => ({ id: 'pay_1', return_url: 'https://shop.example/r', status: 'REQUIRES_ACTION', next_action: null, ...patch }) as PaymentView;

  it('the form is open only while the hosted page is the pending action', () => {
    expect(hostedPageOpen(payment({ next_action: { reason: 'hosted_payment_page', redirect_url: 'x' } }))).toBe(true);
    expect(hostedPageOpen(payment({ next_action: { reason: 'three_d_secure', redirect_url: 'x' } }))).toBe(false);
    expect(hostedPageOpen(payment({ status: 'SUCCEEDED' }))).toBe(false);
  });

  it.each([
    ['SUCCEEDED', 'This payment is already completed'],
    ['PROCESSING', 'This payment is already being processed'],
    ['FAILED', 'This payment was not completed'],
    ['EXPIRED', 'This payment page has expired'],
  ] as const)('%s', (status, title) => {
    const view = closedPaymentPage(payment({ status }), heading);
    expect(view.title).toBe(title);
    expect(view.link).toEqual({ href: 'https://shop.example/r?payment_id=pay_1', text: 'Return to Tea & Co <Ltd>' });
  });

  it('a payment waiting for 3D Secure links to the bank page', () => {
    const view = closedPaymentPage(payment({ next_action: { reason: 'three_d_secure', redirect_url: 'http://bank.example/3ds/a/b' } }), heading);
    expect(view.link).toEqual({ href: 'http://bank.example/3ds/a/b', text: 'Continue to your bank' });
  });

  it('status pages escape what they show', () => {
    expect(renderStatusPage({ heading, tone: 'success', title: 'Done <now>', message: 'm', link: { href: 'https://a.example/?x=1&y=2', text: 'Back' } }))
      .toContain('<h1>Done &lt;now&gt;</h1>');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
