// The sandbox acquirer's behaviour, free of HTTP plumbing: each operation returns the answer the
// transport should send. Processing objects settle lazily: every read compares settle_at with the
// clock, so there are no timers to leak and a read after settle_at always sees the final status.
import { cardExpired, detectBrand, isPayoutEligibleBrand, last4, luhnValid } from '../../domain/cards';
import type { FailureCode } from '../../domain/failure-codes';
import { randomBase62 } from '../../domain/ids';
import { characterCount } from '../../domain/text';
import type {
  AuthorizationRecord, CardSummary, PayoutRecord, RefundRecord, SandboxState,
} from './state';
import { paymentBehaviour, payoutBehaviour, refundBehaviour } from './test-cards';

export interface Answer {
  status: number;
  json?: unknown;
  html?: string;
  headers?: Record<string, string>;
  /** Hold the answer back this long (the slow payout card). */
  delayMs?: number;
}

export interface AcquirerConfig {
  settleMs: number;
  timeoutDelayMs: number;
  now: () => number;
}

export type StepLookup =
  | { kind: 'not_found' }
  | { kind: 'gone'; record: AuthorizationRecord }
  | { kind: 'step'; record: AuthorizationRecord; step: 'device' | 'challenge' };

export type StepCompletion =
  | Exclude<StepLookup, { kind: 'step' }>
  | { kind: 'bad_outcome'; record: AuthorizationRecord; step: 'device' | 'challenge' }
  | { kind: 'redirect'; record: AuthorizationRecord; location: string };

const COUNTRY = 'US';
/** What a proxy in front of an acquirer says when the upstream broke: not JSON, not verifiable. */
export const BAD_GATEWAY_HTML = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>upstream</center></body></html>\n';

class InvalidRequest extends Error {}

function badRequest(field: string): Answer {
  // Names the field, never its value: values may be card data.
  return { status: 400, json: { error: 'invalid_request', message: `${field} is missing or invalid` } };
}

function missingKey(): Answer {
  return { status: 400, json: { error: 'idempotency_key_missing', message: 'The Idempotency-Key header is required' } };
}

/** Answers of a request the acquirer did not act on. */
function rateLimited(): Answer {
  return { status: 429, headers: { 'Retry-After': '1' }, json: { error: 'rate_limited' } };
}

function unavailable(): Answer {
  return { status: 503, json: { error: 'service_unavailable' } };
}

/** A record as it is answered, or 404 when there is none. */
function found<R>(record: R | undefined, json: (record: R) => Record<string, unknown>): Answer {
  return record ? { status: 200, json: json(record) } : { status: 404, json: { error: 'not_found' } };
}

/** A refund's or payout's status and failure code once it settled to its outcome. */
function applyOutcome(record: RefundRecord | PayoutRecord): void {
  record.status = record.outcome.status;
  record.failureCode = record.outcome.status === 'failed' ? record.outcome.failureCode : null;
}

type AnyRecord = AuthorizationRecord | RefundRecord | PayoutRecord;

/**
 * The fields every record answers with, in the protocol's order: `head` follows `object`, `tail`
 * follows `status`, and `settle_at` is there while the record is processing.
 */
function recordJson(object: string, record: AnyRecord, head: Record<string, unknown>, tail: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: record.id,
    object,
    ...head,
    amount: record.amount,
    currency: record.currency,
    status: record.status,
    ...tail,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
  if (record.status === 'processing') out.settle_at = record.settleAt;
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(obj: Record<string, unknown>, field: string, max = 255): string {
  const value = obj[field];
  if (typeof value !== 'string' || value.length === 0 || characterCount(value) > max) throw new InvalidRequest(field);
  return value;
}

function int(obj: Record<string, unknown>, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = obj[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new InvalidRequest(field);
  }
  return value;
}

function currency(obj: Record<string, unknown>): string {
  const value = str(obj, 'currency', 3);
  if (!/^[A-Z]{3}$/.test(value)) throw new InvalidRequest('currency');
  return value;
}

function httpUrl(obj: Record<string, unknown>, field: string): string {
  const value = str(obj, field, 2048);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidRequest(field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidRequest(field);
  return value;
}

function validate<T>(fn: () => T): T | Answer {
  try {
    return fn();
  } catch (err) {
    if (err instanceof InvalidRequest) return badRequest(err.message);
    throw err;
  }
}

function isAnswer(value: unknown): value is Answer {
  return value instanceof Object && 'status' in value && typeof (value as Answer).status === 'number';
}

function cardSummary(number: string): CardSummary {
  return { brand: detectBrand(number), last4: last4(number), country: COUNTRY };
}

/** Card number format check before Luhn: digits only, 12 to 19 of them. */
function wellFormed(number: string): boolean {
  return /^\d{12,19}$/.test(number);
}

function expiryProblem(month: number, year: number, now: number): FailureCode | null {
  if (month < 1 || month > 12) return 'invalid_expiry';
  return cardExpired(month, year, new Date(now)) ? 'expired_card' : null;
}

export class Acquirer {
  constructor(
    private readonly state: SandboxState,
    private readonly config: AcquirerConfig,
  ) {}

  private now(): number {
    return this.config.now();
  }

  private baseUrl(origin: string): string {
    return (this.state.settings.publicUrl ?? origin).replace(/\/+$/, '');
  }

  // ---- settlement (lazy) ----

  settleAuthorization(record: AuthorizationRecord): AuthorizationRecord {
    if (record.status === 'processing' && record.settleAt !== null && record.settleAt <= this.now()) {
      record.status = 'succeeded';
      record.updatedAt = record.settleAt;
    }
    return record;
  }

  /** Refunds and payouts settle to the outcome their test card chose when they were taken. */
  settleToOutcome<R extends RefundRecord | PayoutRecord>(record: R): R {
    if (record.status === 'processing' && record.settleAt !== null && record.settleAt <= this.now()) {
      applyOutcome(record);
      record.updatedAt = record.settleAt;
    }
    return record;
  }

  /** A new refund or payout: settled to its outcome at once when settling takes no time, else at settle_at. */
  private settleLater(record: RefundRecord | PayoutRecord, now: number): void {
    if (this.config.settleMs <= 0) applyOutcome(record);
    else record.settleAt = now + this.config.settleMs;
  }

  // ---- serializers ----

  authorizationJson(record: AuthorizationRecord): Record<string, unknown> {
    this.settleAuthorization(record);
    const out = recordJson('authorization', record, { reference: record.reference }, { card: { ...record.card } });
    if (record.status === 'declined') out.decline_code = record.declineCode;
    if (record.status === 'requires_action') out.action = { type: 'three_d_secure', url: record.actionUrl };
    return out;
  }

  refundJson(record: RefundRecord): Record<string, unknown> {
    this.settleToOutcome(record);
    const out = recordJson('refund', record, { reference: record.reference, authorization_id: record.authorizationId });
    if (record.status === 'failed' || record.status === 'rejected') out.failure_code = record.failureCode;
    return out;
  }

  payoutJson(record: PayoutRecord): Record<string, unknown> {
    this.settleToOutcome(record);
    const out = recordJson('payout', record, { idempotency_key: record.idempotencyKey, reference: record.reference }, { card: { ...record.card } });
    if (record.status === 'failed') out.failure_code = record.failureCode;
    return out;
  }

  // ---- authorizations ----

  authorize(idempotencyKey: string | undefined, body: unknown, origin: string): Answer {
    if (!idempotencyKey) return missingKey();
    const existing = this.state.authorizations.get(idempotencyKey);
    if (existing) return { status: 200, json: this.authorizationJson(existing) };

    const input = validate(() => {
      if (!isObject(body)) throw new InvalidRequest('body');
      const card = body.card;
      if (!isObject(card)) throw new InvalidRequest('card');
      return {
        reference: str(body, 'reference'),
        amount: int(body, 'amount', 1),
        currency: currency(body),
        number: str(card, 'number', 64),
        expMonth: int(card, 'exp_month', 0, 9999),
        expYear: int(card, 'exp_year', 0, 9999),
        cvc: str(card, 'cvc', 8),
        returnUrl: httpUrl(body, 'return_url'),
        notifyUrl: httpUrl(body, 'notify_url'),
      };
    });
    if (isAnswer(input)) return input;

    const valid = wellFormed(input.number) && luhnValid(input.number);
    const behaviour = valid ? paymentBehaviour(input.number) : { kind: 'decline' as const, code: 'invalid_number' as const };

    // Transport-level answers: the acquirer acted on nothing.
    if (behaviour.kind === 'rate_limited') return rateLimited();
    if (behaviour.kind === 'bad_gateway') return { status: 502, html: BAD_GATEWAY_HTML };
    if (behaviour.kind === 'unavailable') return unavailable();

    const now = this.now();
    const record: AuthorizationRecord = {
      id: `auth_${randomBase62(24)}`,
      idempotencyKey,
      reference: input.reference,
      amount: input.amount,
      currency: input.currency,
      status: 'processing',
      declineCode: null,
      card: wellFormed(input.number)
        ? cardSummary(input.number)
        : { brand: 'UNKNOWN', last4: '0000', country: COUNTRY },
      behaviour: behaviour.kind,
      refundBehaviour: valid ? refundBehaviour(input.number) : 'succeed',
      settleAt: null,
      step: null,
      actionUrl: null,
      returnUrl: input.returnUrl,
      notifyUrl: input.notifyUrl,
      createdAt: now,
      updatedAt: now,
    };

    const expiry = valid ? expiryProblem(input.expMonth, input.expYear, now) : null;
    if (expiry) {
      this.decline(record, expiry);
    } else if (behaviour.kind === 'decline') {
      this.decline(record, behaviour.code);
    } else if (behaviour.kind === 'device_then_challenge') {
      this.newStep(record, 'device', origin);
    } else if (behaviour.kind === 'challenge' || behaviour.kind === 'challenge_then_fail') {
      this.newStep(record, 'challenge', origin);
    } else {
      this.startSettling(record);
    }

    this.state.authorizations.set(idempotencyKey, record);
    this.state.authorizationsById.set(record.id, record);
    return { status: 200, json: this.authorizationJson(record) };
  }

  getAuthorization(id: string): Answer {
    return found(this.state.authorizationsById.get(id), (record) => this.authorizationJson(record));
  }

  getAuthorizationByKey(idempotencyKey: string | undefined): Answer {
    if (!idempotencyKey) return badRequest('idempotency_key');
    return found(this.state.authorizations.get(idempotencyKey), (record) => ({ ...this.authorizationJson(record), idempotency_key: record.idempotencyKey }));
  }

  private decline(record: AuthorizationRecord, code: FailureCode): void {
    record.status = 'declined';
    record.declineCode = code;
    record.settleAt = null;
    record.step = null;
    record.actionUrl = null;
  }

  private startSettling(record: AuthorizationRecord): void {
    const now = this.now();
    record.step = null;
    record.actionUrl = null;
    if (this.config.settleMs <= 0) {
      record.status = 'succeeded';
      record.settleAt = null;
    } else {
      record.status = 'processing';
      record.settleAt = now + this.config.settleMs;
    }
  }

  private newStep(record: AuthorizationRecord, kind: 'device' | 'challenge', origin: string): void {
    // A fresh token per step: the redirect URL changes and old URLs stop working.
    const token = randomBase62(32);
    record.status = 'requires_action';
    record.step = { kind, token };
    record.actionUrl = `${this.baseUrl(origin)}/3ds/${record.id}/${token}`;
  }

  // ---- 3D Secure pages ----

  lookupStep(authId: string, token: string): StepLookup {
    const record = this.state.authorizationsById.get(authId);
    if (!record) return { kind: 'not_found' };
    if (record.status !== 'requires_action' || !record.step || record.step.token !== token) {
      return { kind: 'gone', record };
    }
    return { kind: 'step', record, step: record.step.kind };
  }

  /** Applies the shopper's choice synchronously, so a double submit finds the step gone. */
  completeStep(authId: string, token: string, outcome: string, origin: string): StepCompletion {
    const found = this.lookupStep(authId, token);
    if (found.kind !== 'step') return found;
    const { record, step } = found;
    const now = this.now();
    if (step === 'device') {
      if (outcome !== 'continue') return { kind: 'bad_outcome', record, step };
      this.newStep(record, 'challenge', origin);
      record.updatedAt = now;
      return { kind: 'redirect', record, location: record.actionUrl as string };
    }
    if (outcome !== 'authenticate' && outcome !== 'fail') return { kind: 'bad_outcome', record, step };
    if (outcome === 'fail' || record.behaviour === 'challenge_then_fail') {
      this.decline(record, 'three_d_secure_failed');
    } else {
      this.startSettling(record);
    }
    record.updatedAt = now;
    return { kind: 'redirect', record, location: record.returnUrl };
  }

  // ---- refunds ----

  refund(idempotencyKey: string | undefined, body: unknown): Answer {
    if (!idempotencyKey) return missingKey();
    const existing = this.state.refunds.get(idempotencyKey);
    if (existing) return { status: 200, json: this.refundJson(existing) };

    const input = validate(() => {
      if (!isObject(body)) throw new InvalidRequest('body');
      return {
        reference: str(body, 'reference'),
        authorizationId: str(body, 'authorization_id'),
        amount: int(body, 'amount', 1),
        currency: currency(body),
      };
    });
    if (isAnswer(input)) return input;

    const authorization = this.state.authorizationsById.get(input.authorizationId);
    if (!authorization) return { status: 404, json: { error: 'authorization_not_found' } };
    this.settleAuthorization(authorization);

    const now = this.now();
    const record: RefundRecord = {
      id: `rfnd_${randomBase62(24)}`,
      idempotencyKey,
      reference: input.reference,
      authorizationId: authorization.id,
      amount: input.amount,
      currency: input.currency,
      status: 'processing',
      failureCode: null,
      settleAt: null,
      outcome: authorization.refundBehaviour === 'fail_after_settle'
        ? { status: 'failed', failureCode: 'processor_error' }
        : { status: 'succeeded' },
      createdAt: now,
      updatedAt: now,
    };

    const rejection = this.refundRejection(authorization, input.amount, input.currency);
    if (rejection) {
      record.status = 'rejected';
      record.failureCode = rejection;
    } else {
      this.settleLater(record, now);
    }

    this.state.refunds.set(idempotencyKey, record);
    this.state.refundsById.set(record.id, record);
    return { status: 200, json: this.refundJson(record) };
  }

  private refundRejection(authorization: AuthorizationRecord, amount: number, currencyCode: string): FailureCode | null {
    if (authorization.status !== 'succeeded') return 'not_permitted';
    if (authorization.refundBehaviour === 'reject') return 'not_permitted';
    if (currencyCode !== authorization.currency) return 'invalid_currency';
    let committed = 0;
    for (const refund of this.state.refunds.values()) {
      if (refund.authorizationId !== authorization.id) continue;
      this.settleToOutcome(refund);
      if (refund.status === 'processing' || refund.status === 'succeeded') committed += refund.amount;
    }
    if (committed + amount > authorization.amount) return 'invalid_amount';
    return null;
  }

  getRefund(id: string): Answer {
    return found(this.state.refundsById.get(id), (record) => this.refundJson(record));
  }

  // ---- payouts ----

  payout(idempotencyKey: string | undefined, body: unknown): Answer {
    if (!idempotencyKey) return missingKey();
    const existing = this.state.payouts.get(idempotencyKey);
    if (existing) return { status: 200, json: this.payoutJson(existing) };

    const input = validate(() => {
      if (!isObject(body)) throw new InvalidRequest('body');
      const recipient = body.recipient;
      if (!isObject(recipient)) throw new InvalidRequest('recipient');
      return {
        reference: str(body, 'reference'),
        amount: int(body, 'amount', 1),
        currency: currency(body),
        number: str(body, 'card_number', 64),
        firstName: str(recipient, 'first_name'),
        lastName: str(recipient, 'last_name'),
        country: str(recipient, 'country', 2),
      };
    });
    if (isAnswer(input)) return input;

    if (!wellFormed(input.number) || !luhnValid(input.number)) {
      return { status: 422, json: { error: 'invalid_card' } };
    }
    const brand = detectBrand(input.number);
    if (!isPayoutEligibleBrand(brand)) return { status: 422, json: { error: 'unsupported_card' } };

    const attempts = (this.state.payoutAttempts.get(idempotencyKey) ?? 0) + 1;
    this.state.payoutAttempts.set(idempotencyKey, attempts);

    const behaviour = payoutBehaviour(input.number);
    if (behaviour.kind === 'rate_limited_first' && attempts === 1) return rateLimited();
    if (behaviour.kind === 'unavailable_first' && attempts === 1) return unavailable();

    const now = this.now();
    const record: PayoutRecord = {
      id: `pout_${randomBase62(24)}`,
      idempotencyKey,
      reference: input.reference,
      amount: input.amount,
      currency: input.currency,
      status: 'processing',
      failureCode: null,
      settleAt: null,
      outcome: behaviour.kind === 'unavailable_then_fail'
        ? { status: 'failed', failureCode: 'processor_unavailable' }
        : { status: 'succeeded' },
      card: cardSummary(input.number),
      recipientCountry: input.country,
      createdAt: now,
      updatedAt: now,
    };
    if (behaviour.kind === 'fail') {
      record.status = 'failed';
      record.failureCode = behaviour.code;
    } else {
      this.settleLater(record, now);
    }
    this.state.payouts.set(idempotencyKey, record);
    this.state.payoutsById.set(record.id, record);

    // These cards acted but answer the first submission ambiguously.
    if (behaviour.kind === 'bad_gateway_after_record') return { status: 502, html: BAD_GATEWAY_HTML };
    if (behaviour.kind === 'unavailable_then_fail') return unavailable();
    const answer: Answer = { status: 200, json: this.payoutJson(record) };
    if (behaviour.kind === 'slow_first') answer.delayMs = this.config.timeoutDelayMs;
    return answer;
  }

  getPayout(id: string): Answer {
    return found(this.state.payoutsById.get(id), (record) => this.payoutJson(record));
  }

  getPayoutByKey(idempotencyKey: string | undefined): Answer {
    if (!idempotencyKey) return badRequest('idempotency_key');
    return found(this.state.payouts.get(idempotencyKey), (record) => this.payoutJson(record));
  }

  // ---- introspection ----

  records(reference: string | undefined): Record<string, unknown> {
    const keep = (r: { reference: string }) => reference === undefined || r.reference === reference;
    return {
      authorizations: [...this.state.authorizations.values()].filter(keep).map((r) => {
        this.settleAuthorization(r);
        return {
          idempotency_key: r.idempotencyKey, id: r.id, reference: r.reference, status: r.status,
          amount: r.amount, currency: r.currency, card_last4: r.card.last4,
        };
      }),
      refunds: [...this.state.refunds.values()].filter(keep).map((r) => {
        this.settleToOutcome(r);
        return {
          idempotency_key: r.idempotencyKey, id: r.id, reference: r.reference, status: r.status,
          authorization_id: r.authorizationId, amount: r.amount, currency: r.currency,
        };
      }),
      payouts: [...this.state.payouts.values()].filter(keep).map((r) => {
        this.settleToOutcome(r);
        return {
          idempotency_key: r.idempotencyKey, id: r.id, reference: r.reference, status: r.status,
          amount: r.amount, currency: r.currency,
        };
      }),
    };
  }
}
