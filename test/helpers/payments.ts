// Small assertions and shortcuts shared by the Payment integration tests.
import type { RunningApi } from '../../src/api/server';
import { emptyTransitions, type PaymentView } from '../../src/domain/payment';
import { SecretBox } from '../../src/vault/crypto';
import { type ApiTarget, call, directPaymentBody, eventually, type CallResult } from './api';
import { TEST_ENV } from './test-env';

export const REQUEST_ID = /^req_[A-Za-z0-9]{24}$/;
export const PAYMENT_ID = /^pay_[A-Za-z0-9]{24}$/;
export const FUTURE_YEAR = new Date().getFullYear() + 2;

/** The Shape A error envelope (docs/api-reference.md, "Errors") with the given status, code and (when given) param. */
export function expectError(res: CallResult, status: number, code: string, param?: string | null): void {
  const summary = `${res.status} ${res.text}`;
  expect({ status: res.status, code: res.json?.error?.code, summary }).toEqual({ status, code, summary });
  expect(typeof res.json.error.message).toBe('string');
  expect(res.json.error.request_id).toMatch(REQUEST_ID);
  expect(res.headers.get('request-id')).toBe(res.json.error.request_id);
  if (param === null) expect(res.json.error.param).toBeUndefined();
  else if (param !== undefined) expect({ param: res.json.error.param, summary }).toEqual({ param, summary });
}

export function createDirectPayment(api: ApiTarget, key: string, overrides: Record<string, unknown> = {}, card: Record<string, unknown> = {}, idempotencyKey?: string): Promise<CallResult> {
  return call(api, 'POST', '/v1/payments', { key, body: directPaymentBody(overrides, card), idempotencyKey });
}

const versionHeader = (version?: string): Record<string, string> => (version ? { 'Service-Version': version } : {});

export function getPayment(api: ApiTarget, key: string, id: string, version?: string): Promise<CallResult> {
  return call(api, 'GET', `/v1/payments/${id}`, { key, headers: versionHeader(version) });
}

/** The Payment GET answers (which must be 200), in the merchant's default version or `version`. */
export async function readPayment(api: ApiTarget, key: string, id: string, version?: string): Promise<any> {
  const res = await getPayment(api, key, id, version);
  expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: res.text });
  return res.json;
}

export interface PayOptions {
  /** Fields over the Direct body of directPaymentBody (amount, currency, ...). */
  body?: Record<string, unknown>;
  /** Fields over its card. */
  card?: Record<string, unknown>;
  /** `Service-Version` of the request; absent: the merchant's default. */
  version?: string;
}

/** A Direct create that must answer 201; its answer. */
export async function pay(api: ApiTarget, key: string, options: PayOptions = {}): Promise<any> {
  const res = await call(api, 'POST', '/v1/payments', { key, headers: versionHeader(options.version), body: directPaymentBody(options.body, options.card) });
  expect({ status: res.status, text: res.text }).toEqual({ status: 201, text: res.text });
  return res.json;
}

/** A Direct create, once GET shows it SUCCEEDED (give a card that succeeds). */
export async function succeededPayment(api: ApiTarget, key: string, options: PayOptions = {}): Promise<any> {
  const created = await pay(api, key, options);
  return eventually(() => readPayment(api, key, created.id, options.version), (p) => p.status === 'SUCCEEDED');
}

/** Polls GET /v1/payments/{id} until the Payment has `status`. */
export async function waitForStatus(api: ApiTarget, key: string, id: string, status: string, timeoutMs = 20_000): Promise<any> {
  const res = await eventually(() => getPayment(api, key, id), (r) => r.status === 200 && r.json.status === status, timeoutMs);
  return res.json;
}

export async function paymentRowCount(api: RunningApi, merchantId: string): Promise<number> {
  const rows: Array<{ n: number | string }> = await api.deps.dataSource.query('SELECT COUNT(*) AS n FROM payments WHERE merchant_id = ?', [merchantId]);
  return Number(rows[0]!.n);
}

/** The Payment id an Idempotency-Key was bound to, from the claim row (errors do not show it). */
export async function boundPaymentId(api: RunningApi, idempotencyKey: string): Promise<string | null> {
  const rows: Array<{ object_id: string }> = await api.deps.dataSource.query(
    "SELECT object_id FROM idempotency_records WHERE idempotency_key = ? AND operation = 'payments.create'", [idempotencyKey],
  );
  if (rows.length > 1) throw new Error(`key ${idempotencyKey} is bound ${rows.length} times`);
  return rows[0]?.object_id ?? null;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The suite's vault key, which seals hosted page tokens in the Payment read model as the API's does. */
export const TEST_BOX = new SecretBox(TEST_ENV.vaultKey);

/** A Payment as its workflow projects it, for read-model tests: SUCCEEDED, no card, no refunds. */
export function projectedPayment(merchantId: string, id: string, overrides: Partial<PaymentView> = {}): PaymentView {
  return {
    id, merchant_id: merchantId, livemode: false, amount: 1000, currency: 'EUR', status: 'SUCCEEDED', integration_type: 'DIRECT',
    merchant_reference: null, description: null, card: null, billing_details: null, failure_code: null, failure_message: null,
    amount_refunded: 0, amount_refundable: 1000, refunds: [], status_transitions: emptyTransitions(), next_action: null, refunded_at: null,
    return_url: null, customer_ip_address: null, merchant_customer_id: null, metadata: null, customer: null, callback_url: null,
    hosted_token: null, hosted_page_url: null, api_version: null, created_at: 1_800_000_000, updated_at: 1_800_000_000, version: 1,
    ...overrides,
  };
}
