// ProviderClient over HTTP (the sandbox acquirer speaks this protocol). Every answer is validated
// before it is believed: anything unexpected is `unanswered` (one reading, `unanswered()` below),
// never a success or a definite failure. Methods do not throw, and nothing they return or log
// carries card data.
import type { CardBrand } from '../domain/cards';
import { isFailureCode, type FailureCode } from '../domain/failure-codes';
import type {
  CallOptions,
  AuthorizationAnswer, AuthorizationResult, AuthorizeRequest, Lookup, PayoutAnswer, PayoutRequest, PayoutResult,
  ProviderCardSummary, ProviderClient, RefundAnswer, RefundRequest, RefundResult, SettlingAnswer, Unanswered,
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
  | { kind: 'answer'; status: number; headers: Headers; json: unknown }
  | { kind: 'timeout' }
  /** The connection could not be made: nothing reached the provider. */
  | { kind: 'not_sent' }
  /** The connection broke after it was made: the provider may have acted. */
  | { kind: 'broken' };

/**
 * Statuses with which an endpoint refuses a request without acting on it, as the protocol states:
 * a 429 everywhere, and a 503 on authorizations (a payout answered 503 may have been recorded).
 */
const REFUSED_UNPROCESSED = {
  authorize: [429, 503],
  refund: [429],
  payout: [429],
} as const;

/** A lookup acts on nothing, and without an answer it rules nothing out. */
const LOOKUP = null;

/**
 * The one reading of an exchange whose answer proves nothing: what happened, the provider's
 * Retry-After, and whether the provider may have acted on the request (`refusedUnprocessed` names
 * the statuses that say it did not; LOOKUP for a lookup).
 */
function unanswered(exchange: Exchange, refusedUnprocessed: readonly number[] | typeof LOOKUP): Unanswered {
  const acting = refusedUnprocessed !== LOOKUP;
  switch (exchange.kind) {
    case 'not_sent':
      return { kind: 'unanswered', cause: 'not_sent', mayHaveActed: !acting, retryAfterSeconds: null };
    case 'timeout':
      return { kind: 'unanswered', cause: 'timeout', mayHaveActed: true, retryAfterSeconds: null };
    case 'broken':
      return { kind: 'unanswered', cause: 'connection_lost', mayHaveActed: true, retryAfterSeconds: null };
    case 'answer': {
      const retryAfterSeconds = parseRetryAfter(exchange.headers.get('retry-after'));
      const cause = exchange.status === 429 ? 'rate_limited' : exchange.status === 503 ? 'unavailable' : 'invalid_answer';
      const refused = acting && refusedUnprocessed.includes(exchange.status);
      return { kind: 'unanswered', cause, mayHaveActed: !refused, retryAfterSeconds };
    }
  }
}

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

/** The JSON object of a 200 answer about the object asked for; an answer about another object is not an answer. */
function bodyAbout(exchange: Exchange, about: (body: Record<string, unknown>) => boolean): Record<string, unknown> | null {
  return exchange.kind === 'answer' && exchange.status === 200 && isObject(exchange.json) && about(exchange.json) ? exchange.json : null;
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

  private async exchange(method: 'GET' | 'POST', path: string, body?: unknown, idempotencyKey?: string, options: CallOptions = {}): Promise<Exchange> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    try {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: options.signal ? AbortSignal.any([AbortSignal.timeout(this.timeoutMs), options.signal]) : AbortSignal.timeout(this.timeoutMs),
        redirect: 'manual',
      });
      const text = await res.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // Not JSON (an HTML error page, say): the status alone has to do.
      }
      return { kind: 'answer', status: res.status, headers: res.headers, json };
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
    const body = bodyAbout(exchange, (b) => b.reference === req.reference);
    return (body && parseAuthorization(body)) ?? unanswered(exchange, REFUSED_UNPROCESSED.authorize);
  }

  async getAuthorization(providerId: string): Promise<Lookup<AuthorizationAnswer>> {
    const exchange = await this.exchange('GET', `/v1/authorizations/${encodeURIComponent(providerId)}`);
    if (isNotFound(exchange)) return { kind: 'not_found' };
    const body = bodyAbout(exchange, (b) => b.id === providerId);
    return (body && parseAuthorization(body)) ?? unanswered(exchange, LOOKUP);
  }

  async getAuthorizationByKey(idempotencyKey: string): Promise<Lookup<AuthorizationAnswer>> {
    const exchange = await this.exchange('GET', `/v1/authorizations?idempotency_key=${encodeURIComponent(idempotencyKey)}`);
    if (isNotFound(exchange)) return { kind: 'not_found' };
    const body = bodyAbout(exchange, (b) => b.idempotency_key === idempotencyKey);
    return (body && parseAuthorization(body)) ?? unanswered(exchange, LOOKUP);
  }

  async refund(req: RefundRequest): Promise<RefundResult> {
    const exchange = await this.exchange('POST', '/v1/refunds', {
      reference: req.reference,
      authorization_id: req.authorizationId,
      amount: req.amount,
      currency: req.currency,
    }, req.idempotencyKey);
    // A definite "no such authorization": nothing was refunded, and retrying cannot change that.
    if (exchange.kind === 'answer' && exchange.status === 404 && isObject(exchange.json) && exchange.json.error === 'authorization_not_found') {
      return { kind: 'rejected', failureCode: 'not_found' };
    }
    const body = bodyAbout(exchange, (b) => b.reference === req.reference);
    return (body && parseRefund(body)) ?? unanswered(exchange, REFUSED_UNPROCESSED.refund);
  }

  async getRefund(providerId: string): Promise<Lookup<RefundAnswer>> {
    const exchange = await this.exchange('GET', `/v1/refunds/${encodeURIComponent(providerId)}`);
    if (isNotFound(exchange)) return { kind: 'not_found' };
    const body = bodyAbout(exchange, (b) => b.id === providerId);
    return (body && parseRefund(body)) ?? unanswered(exchange, LOOKUP);
  }

  async payout(req: PayoutRequest, options?: CallOptions): Promise<PayoutResult> {
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
    }, req.idempotencyKey, options);
    if (exchange.kind === 'answer' && exchange.status === 422 && isObject(exchange.json)
      && (exchange.json.error === 'unsupported_card' || exchange.json.error === 'invalid_card')) {
      // The API validates destinations first, so this is defensive; nothing was recorded.
      return { kind: 'failed', providerId: '', failureCode: 'invalid_number' };
    }
    const body = bodyAbout(exchange, (b) => b.reference === req.reference);
    return (body && parsePayout(body)) ?? unanswered(exchange, REFUSED_UNPROCESSED.payout);
  }

  async getPayoutByKey(idempotencyKey: string, options?: CallOptions): Promise<Lookup<PayoutAnswer>> {
    const exchange = await this.exchange('GET', `/v1/payouts?idempotency_key=${encodeURIComponent(idempotencyKey)}`, undefined, undefined, options);
    if (isNotFound(exchange)) return { kind: 'not_found' };
    const body = bodyAbout(exchange, (b) => b.idempotency_key === undefined || b.idempotency_key === idempotencyKey);
    return (body && parsePayout(body)) ?? unanswered(exchange, LOOKUP);
  }
}
