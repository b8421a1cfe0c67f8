// ProviderClient over HTTP (the sandbox acquirer speaks this protocol). Every answer is validated
// before it is believed: anything unexpected maps to the "we cannot tell" member of the result
// union, never to a success or a definite failure. Methods do not throw, and nothing they return
// or log carries card data.
import type { CardBrand } from '../domain/cards';
import { isFailureCode, type FailureCode } from '../domain/failure-codes';
import type {
  AuthorizationResult, AuthorizeRequest, LookupResult, PayoutRequest, PayoutResult, ProviderCardSummary,
  ProviderClient, RefundRequest, RefundResult, SettlingAnswer,
} from './types';

export interface HttpProviderClientOptions {
  baseUrl: string;
  /** Per request, covering the connection, the answer and its body. */
  timeoutMs?: number;
}

const CARD_BRANDS: readonly CardBrand[] = [
  'VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'JCB', 'DINERS', 'UNIONPAY', 'UNKNOWN',
];

/** Errors raised before a request could reach the provider: it cannot have acted. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT',
]);

type Exchange =
  | { kind: 'answer'; status: number; headers: Headers; json: unknown; parsed: boolean }
  | { kind: 'timeout' }
  /** The connection could not be made: nothing reached the provider. */
  | { kind: 'not_sent' }
  /** The connection broke after it was made: the provider may have acted. */
  | { kind: 'broken' };

type AuthorizationAnswer = Extract<AuthorizationResult, { providerId: string }>;
type RefundAnswer = Exclude<RefundResult, { kind: 'uncertain' }>;
type PayoutAnswer = Exclude<PayoutResult, { kind: 'uncertain' }>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (typeof record.code === 'string') codes.push(record.code);
    if (depth > 3) return;
    if (record.cause !== undefined) visit(record.cause, depth + 1);
    // Happy-eyeballs connects report an AggregateError with one error per address.
    if (Array.isArray(record.errors)) for (const inner of record.errors) visit(inner, depth + 1);
  };
  visit(err, 0);
  return codes;
}

function isTimeout(err: unknown): boolean {
  // Duck-typed: fetch's DOMException may come from another realm (jest), so instanceof fails.
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  return name === 'TimeoutError' || name === 'AbortError';
}

export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number.parseInt(trimmed, 10);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function failureCode(value: unknown): FailureCode | null {
  if (!nonEmptyString(value)) return null;
  // A code we do not know still means the provider failed it; its detail stays with them.
  return isFailureCode(value) ? value : 'processor_error';
}

function parseCard(value: unknown): ProviderCardSummary | null {
  if (!isObject(value)) return null;
  const { brand, last4, country } = value;
  if (typeof brand !== 'string' || !(CARD_BRANDS as readonly string[]).includes(brand)) return null;
  if (typeof last4 !== 'string' || !/^\d{4}$/.test(last4)) return null;
  if (country !== undefined && country !== null && (typeof country !== 'string' || !/^[A-Z]{2}$/.test(country))) {
    return null;
  }
  return { brand: brand as CardBrand, last4, country: country ?? null };
}

function settleAt(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function httpUrl(value: unknown): string | null {
  if (!nonEmptyString(value)) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

export function parseAuthorization(value: unknown): AuthorizationAnswer | null {
  if (!isObject(value) || !nonEmptyString(value.id)) return null;
  const providerId = value.id;
  const card = parseCard(value.card);
  if (!card) return null;
  switch (value.status) {
    case 'processing': {
      const at = settleAt(value.settle_at);
      return at === null ? null : { kind: 'processing', providerId, card, settleAt: at };
    }
    case 'succeeded':
      return { kind: 'succeeded', providerId, card };
    case 'declined': {
      const code = failureCode(value.decline_code);
      return code === null ? null : { kind: 'declined', providerId, card, failureCode: code };
    }
    case 'requires_action': {
      const action = value.action;
      if (!isObject(action) || action.type !== 'three_d_secure') return null;
      const redirectUrl = httpUrl(action.url);
      return redirectUrl === null ? null : { kind: 'requires_action', providerId, card, redirectUrl };
    }
    default:
      return null;
  }
}

export function parseRefund(value: unknown): RefundAnswer | null {
  if (!isObject(value)) return null;
  if (value.status === 'rejected') {
    const code = failureCode(value.failure_code);
    return code === null ? null : { kind: 'rejected', failureCode: code };
  }
  return parseSettling(value);
}

export function parsePayout(value: unknown): PayoutAnswer | null {
  return isObject(value) ? parseSettling(value) : null;
}

/** A refund's or a payout's answer once the provider has taken it: processing, succeeded or failed. */
function parseSettling(value: Record<string, unknown>): SettlingAnswer | null {
  if (!nonEmptyString(value.id)) return null;
  const providerId = value.id;
  switch (value.status) {
    case 'processing': {
      const at = settleAt(value.settle_at);
      return at === null ? null : { kind: 'processing', providerId, settleAt: at };
    }
    case 'succeeded':
      return { kind: 'succeeded', providerId };
    case 'failed': {
      const code = failureCode(value.failure_code);
      return code === null ? null : { kind: 'failed', providerId, failureCode: code };
    }
    default:
      return null;
  }
}

/** The echoed reference must be ours: an answer about another object is not an answer. */
function sameReference(json: unknown, reference: string): boolean {
  return isObject(json) && json.reference === reference;
}

function isNotFound(exchange: Exchange): boolean {
  return exchange.kind === 'answer' && exchange.status === 404 && isObject(exchange.json)
    && exchange.json.error === 'not_found';
}

export class HttpProviderClient implements ProviderClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor({ baseUrl, timeoutMs = 8000 }: HttpProviderClientOptions) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.timeoutMs = timeoutMs;
  }

  private async exchange(method: 'GET' | 'POST', path: string, body?: unknown, idempotencyKey?: string): Promise<Exchange> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'manual',
      });
      const text = await res.text();
      let json: unknown = null;
      let parsed = false;
      try {
        json = JSON.parse(text);
        parsed = true;
      } catch {
        // Not JSON (an HTML error page, say): the status alone has to do.
      }
      return { kind: 'answer', status: res.status, headers: res.headers, json, parsed };
    } catch (err) {
      if (isTimeout(err)) return { kind: 'timeout' };
      if (errorCodes(err).some((code) => NOT_SENT_CODES.has(code))) return { kind: 'not_sent' };
      return { kind: 'broken' };
    }
  }

  async authorize(req: AuthorizeRequest): Promise<AuthorizationResult> {
    const exchange = await this.exchange('POST', '/v1/authorizations', {
      reference: req.reference,
      amount: req.amount,
      currency: req.currency,
      card: {
        number: req.card.number,
        exp_month: req.card.exp_month,
        exp_year: req.card.exp_year,
        cvc: req.card.cvc,
        holder_name: req.card.holder_name ?? null,
      },
      return_url: req.returnUrl,
      notify_url: req.notifyUrl,
    }, req.idempotencyKey);
    switch (exchange.kind) {
      case 'timeout':
      case 'broken':
        return { kind: 'unverifiable' };
      case 'not_sent':
        return { kind: 'unavailable', retryAfterSeconds: null };
      case 'answer':
        break;
    }
    const retryAfter = parseRetryAfter(exchange.headers.get('retry-after'));
    if (exchange.status === 429) return { kind: 'rate_limited', retryAfterSeconds: retryAfter };
    if (exchange.status === 503) return { kind: 'unavailable', retryAfterSeconds: retryAfter };
    if (exchange.status !== 200 || !exchange.parsed || !sameReference(exchange.json, req.reference)) {
      return { kind: 'unverifiable' };
    }
    return parseAuthorization(exchange.json) ?? { kind: 'unverifiable' };
  }

  async getAuthorization(providerId: string): Promise<LookupResult<AuthorizationResult>> {
    const exchange = await this.exchange('GET', `/v1/authorizations/${encodeURIComponent(providerId)}`);
    if (isNotFound(exchange)) return { kind: 'not_found' };
    if (exchange.kind !== 'answer' || exchange.status !== 200) return { kind: 'uncertain' };
    const result = parseAuthorization(exchange.json);
    return result && result.providerId === providerId ? result : { kind: 'uncertain' };
  }

  async getAuthorizationByKey(idempotencyKey: string): Promise<LookupResult<AuthorizationResult>> {
    const exchange = await this.exchange('GET', `/v1/authorizations?idempotency_key=${encodeURIComponent(idempotencyKey)}`);
    if (isNotFound(exchange)) return { kind: 'not_found' };
    if (exchange.kind !== 'answer' || exchange.status !== 200 || !isObject(exchange.json)) return { kind: 'uncertain' };
    if (exchange.json.idempotency_key !== idempotencyKey) return { kind: 'uncertain' };
    return parseAuthorization(exchange.json) ?? { kind: 'uncertain' };
  }

  async refund(req: RefundRequest): Promise<RefundResult> {
    const exchange = await this.exchange('POST', '/v1/refunds', {
      reference: req.reference,
      authorization_id: req.authorizationId,
      amount: req.amount,
      currency: req.currency,
    }, req.idempotencyKey);
    if (exchange.kind !== 'answer') return { kind: 'uncertain' };
    // A definite "no such authorization": nothing was refunded, and retrying cannot change that.
    if (exchange.status === 404 && isObject(exchange.json) && exchange.json.error === 'authorization_not_found') {
      return { kind: 'rejected', failureCode: 'not_found' };
    }
    if (exchange.status !== 200 || !sameReference(exchange.json, req.reference)) return { kind: 'uncertain' };
    return parseRefund(exchange.json) ?? { kind: 'uncertain' };
  }

  async getRefund(providerId: string): Promise<LookupResult<RefundResult>> {
    const exchange = await this.exchange('GET', `/v1/refunds/${encodeURIComponent(providerId)}`);
    if (isNotFound(exchange)) return { kind: 'not_found' };
    if (exchange.kind !== 'answer' || exchange.status !== 200) return { kind: 'uncertain' };
    if (!isObject(exchange.json) || exchange.json.id !== providerId) return { kind: 'uncertain' };
    return parseRefund(exchange.json) ?? { kind: 'uncertain' };
  }

  async payout(req: PayoutRequest): Promise<PayoutResult> {
    const exchange = await this.exchange('POST', '/v1/payouts', {
      reference: req.reference,
      amount: req.amount,
      currency: req.currency,
      card_number: req.cardNumber,
      recipient: {
        first_name: req.recipient.first_name,
        last_name: req.recipient.last_name,
        country: req.recipient.country,
      },
    }, req.idempotencyKey);
    switch (exchange.kind) {
      case 'timeout':
        return { kind: 'uncertain', reason: 'timeout', retryAfterSeconds: null };
      case 'not_sent':
      case 'broken':
        return { kind: 'uncertain', reason: 'unreachable', retryAfterSeconds: null };
      case 'answer':
        break;
    }
    const retryAfter = parseRetryAfter(exchange.headers.get('retry-after'));
    if (exchange.status === 429) return { kind: 'uncertain', reason: 'rate_limited', retryAfterSeconds: retryAfter };
    if (exchange.status === 422 && isObject(exchange.json)
      && (exchange.json.error === 'unsupported_card' || exchange.json.error === 'invalid_card')) {
      // The API validates destinations first, so this is defensive; nothing was recorded.
      return { kind: 'failed', providerId: '', failureCode: 'invalid_number' };
    }
    if (exchange.status === 200 && sameReference(exchange.json, req.reference)) {
      const result = parsePayout(exchange.json);
      if (result) return result;
    }
    return { kind: 'uncertain', reason: 'server_error', retryAfterSeconds: retryAfter };
  }

  async getPayoutByKey(idempotencyKey: string): Promise<LookupResult<PayoutResult>> {
    const exchange = await this.exchange('GET', `/v1/payouts?idempotency_key=${encodeURIComponent(idempotencyKey)}`);
    if (isNotFound(exchange)) return { kind: 'not_found' };
    if (exchange.kind !== 'answer' || exchange.status !== 200 || !isObject(exchange.json)) return { kind: 'uncertain' };
    const echoed = exchange.json.idempotency_key;
    if (echoed !== undefined && echoed !== idempotencyKey) return { kind: 'uncertain' };
    return parsePayout(exchange.json) ?? { kind: 'uncertain' };
  }
}
