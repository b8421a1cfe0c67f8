// No card number or CVC in the database, the logs or the workflow histories (docs/architecture.md,
// "Card data"): payments of every kind run through with a distinctive CVC, then everything is
// dumped and scanned.
import { randomUUID } from 'node:crypto';
import { call, directPaymentBody, useTestApi } from '../helpers/api';
import { boundPaymentId, createDirectPayment, expectError, pay as createPayment, waitForStatus } from '../helpers/payments';
import { submitOutcome } from '../helpers/sandbox';
import { decodedText, dumpDatabase, historyText, occurrences, readLogs } from '../helpers/scan';

const CVC = '737';
/** The CVC as a JSON string value, escaped or not (inside a JSON text column or a log line). */
const QUOTED_CVC = /\\*"737\\*"/;
/** A `cvc` member of any JSON document. */
const CVC_MEMBER = /\\*"cvc\\*"\s*:/i;
/**
 * Tables of the payout search index hold fragments of payout text (suffixes, grams): a fragment such
 * as "737" is the tail of a merchant reference or an amount, not a CVC. No card data reaches payouts'
 * text (the card number is kept as its last four), and the card-number scan still covers them.
 */
const SEARCH_FRAGMENTS = new Set(['payout_search_suffixes', 'payout_search_grams']);

const paymentIds: string[] = [];
const pans = new Set<string>();

const t = useTestApi({ merchant: { name: 'Secrets Shop' }, timeoutMs: 60_000 });

/** A Direct create that must answer 201, its card number and id kept for the scans below. */
async function pay(number: string, card: Record<string, unknown> = {}): Promise<any> {
  pans.add(number);
  const created = await createPayment(t.api, t.merchant.testKey, { card: { number, cvc: CVC, ...card } });
  paymentIds.push(created.id);
  return created;
}

it('runs payments of every kind through', async () => {
  for (const number of ['4242424242424242', '5555555555554444', '378282246310005', '6011111111111117']) {
    const payment = await pay(number);
    await waitForStatus(t.api, t.merchant.testKey, payment.id, 'SUCCEEDED');
  }
  expect((await pay('4000000000000002')).status).toBe('FAILED');
  expect((await pay('4111111111111111', { exp_year: 2020 })).status).toBe('FAILED');

  const challenge = await pay('4000000000003220');
  expect((await submitOutcome(challenge.next_action.redirect_url, 'authenticate')).status).toBe(303);
  await waitForStatus(t.api, t.merchant.testKey, challenge.id, 'SUCCEEDED');

  const device = await pay('4000000000003063');
  const next = await submitOutcome(device.next_action.redirect_url, 'continue');
  expect((await submitOutcome(next.location!, 'fail')).status).toBe(303);
  await waitForStatus(t.api, t.merchant.testKey, device.id, 'FAILED');

  // Rate limited: never registered, the card stays sealed in the vault until the workflow drops it.
  const key = randomUUID();
  pans.add('4000004290000003');
  expectError(await createDirectPayment(t.api, t.merchant.testKey, {}, { number: '4000004290000003', cvc: CVC }, key), 429, 'rate_limit_exceeded');
  paymentIds.push((await boundPaymentId(t.api, key))!);

  // Rejected requests carrying card data.
  pans.add('4242424242424241');
  expectError(await createDirectPayment(t.api, t.merchant.testKey, {}, { number: '4242424242424241', cvc: CVC }), 400, 'parameter_invalid');
  expectError(await createDirectPayment(t.api, t.merchant.liveKey, {}, { number: '4000000000000002', cvc: CVC }), 400, 'parameter_invalid');
  expectError(await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body: { ...directPaymentBody({}, { cvc: CVC }), extra: '4242424242424242' } }), 400, 'request_body_invalid', 'extra');
  expectError(await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, rawBody: `{"payment_method_data":{"card":{"number":"5555555555554444","cvc":"${CVC}"}},`, headers: { 'Content-Type': 'application/json' } }), 400, 'request_body_invalid');
}, 120_000);

it('the database holds no card number and no CVC', async () => {
  const dump = await dumpDatabase(t.api.deps.dataSource);
  expect(Object.keys(dump)).toEqual(expect.arrayContaining(['payments', 'card_vault', 'idempotency_records']));
  for (const [table, rows] of Object.entries(dump)) {
    const text = decodedText(rows);
    expect({ table, pans: occurrences(text, [...pans]) }).toEqual({ table, pans: [] });
    const quotedCvc = !SEARCH_FRAGMENTS.has(table) && QUOTED_CVC.test(text);
    expect({ table, quotedCvc, cvcMember: CVC_MEMBER.test(text) }).toEqual({ table, quotedCvc: false, cvcMember: false });
  }
  // Masked data is there: the scan reads real rows.
  expect(decodedText(dump.payments)).toContain('"card_last4":"4242"');

  // Only the never-registered Payment still has a vaulted card, and only as ciphertext.
  const vaulted = dump.card_vault!.filter((row) => row.merchant_id === t.merchant.merchantId);
  expect(vaulted.map((row) => row.token)).toEqual([`tok_${paymentIds[paymentIds.length - 1]!.slice(4)}`]);
  for (const row of vaulted) {
    expect(row.pan_ciphertext).not.toContain('4000004290000003');
    expect(row.cvc_ciphertext).not.toBe(CVC);
  }
});

it('the logs hold no card number, CVC or API key', () => {
  const logs = readLogs();
  expect(Object.keys(logs)).toEqual(expect.arrayContaining(['api.log', 'worker.log', 'sandbox.log']));
  for (const [file, text] of Object.entries(logs)) {
    expect({ file, pans: occurrences(text, [...pans]), keys: occurrences(text, [t.merchant.testKey, t.merchant.liveKey]) }).toEqual({ file, pans: [], keys: [] });
    expect({ file, quotedCvc: QUOTED_CVC.test(text), cvcMember: CVC_MEMBER.test(text) }).toEqual({ file, quotedCvc: false, cvcMember: false });
  }
});

it('the workflow histories hold no card number or CVC', async () => {
  expect(paymentIds).toHaveLength(9);
  for (const id of paymentIds) {
    const text = await historyText(t.api.deps.temporal, id);
    // Payloads are decoded: the masked card and the vault token are readable.
    expect(text).toContain(id);
    expect({ id, pans: occurrences(text, [...pans]) }).toEqual({ id, pans: [] });
    expect({ id, quotedCvc: QUOTED_CVC.test(text), cvcMember: CVC_MEMBER.test(text) }).toEqual({ id, quotedCvc: false, cvcMember: false });
  }
  expect(await historyText(t.api.deps.temporal, paymentIds[0]!)).toMatch(/last4\\*":\\*"4242/);
});
