// The response schemas of both shapes exactly as the serializers emit them, and both error
// envelopes as `errorBody` emits them: every emitted field is listed and required. They are open
// (no `additionalProperties: false`): fields may be added to answers, and a client or validating
// proxy built from the document must accept them. The tests validate real answers against a
// closed copy (test/helpers/openapi.ts), so a field the serializer emits but the schema lacks fails.
import type { CardBrand } from '../../domain/cards';
import { ERROR_CATALOGUE, type ErrorCode } from '../../domain/errors';
import { FAILURE_CODES } from '../../domain/failure-codes';
import { MAX_AMOUNT } from '../../domain/money';
import { PAYMENT_STATUSES, type IntegrationType, type NextActionReason } from '../../domain/payment';
import { METADATA_MAX_KEY_LENGTH, METADATA_MAX_KEYS, METADATA_MAX_VALUE_LENGTH, SHAPE_B_DECLINE_CODES, SHAPE_B_STATUSES } from '../../domain/payment-shape-b';
import { PAYOUT_STATUSES } from '../../domain/payout';
import type { RefundStatus, RefundType } from '../../domain/refunds';
import { KNOWN_VERSIONS } from '../../representations/versions';
import { SHAPE_B_ONLY_CODES } from './error-scopes';
import { openEnum, schemaRef, type JsonSchema } from './types';

// Records keyed by the domain unions, so a new member fails to compile until it is described.
const BRANDS: Record<CardBrand, true> = { VISA: true, MASTERCARD: true, AMEX: true, DISCOVER: true, JCB: true, DINERS: true, UNIONPAY: true, UNKNOWN: true };
const INTEGRATION_TYPES: Record<IntegrationType, true> = { DIRECT: true, HOSTED_PAYMENT_PAGE: true };
const NEXT_ACTION_REASONS: Record<NextActionReason, true> = { hosted_payment_page: true, three_d_secure: true };
const REFUND_STATUSES: Record<RefundStatus, true> = { PENDING: true, PROCESSING: true, SUCCEEDED: true, FAILED: true };
const REFUND_TYPES: Record<RefundType, true> = { FULL: true, PARTIAL: true };

/** A property that must not be present. */
const ABSENT: JsonSchema = { not: {} };

/**
 * A condition on some properties of the (closed) object it is part of (`if`/`then`/`else`).
 * `additionalProperties: true` changes nothing in JSON Schema but says so to example checkers that
 * otherwise treat every subschema listing properties as closed (Redocly's), and reject valid examples.
 */
const partial = (properties: Record<string, JsonSchema>, required?: string[]): JsonSchema => ({
  properties,
  ...(required ? { required } : {}),
  additionalProperties: true,
});

export const CARD_BRANDS = Object.keys(BRANDS) as CardBrand[];
export const REQUEST_ID_PATTERN = '^req_[A-Za-z0-9]{24}$';

export const nullable = (schema: JsonSchema, description?: string): JsonSchema => ({
  oneOf: [schema, { type: 'null' }],
  ...(description ? { description } : {}),
});

export const timestamp = (isNullable: boolean, description?: string): JsonSchema => ({
  type: isNullable ? ['integer', 'null'] : 'integer',
  format: 'int64',
  ...(description ? { description } : { description: 'Unix timestamp (seconds).' }),
});

const minorUnits = (minimum: number, description: string): JsonSchema => ({ type: 'integer', format: 'int64', minimum, maximum: MAX_AMOUNT, description });
const uppercaseCurrency = (): JsonSchema => ({ type: 'string', pattern: '^[A-Z]{3}$', description: 'Three uppercase letters (ISO 4217).' });
const merchantReference = (): JsonSchema => ({ type: ['integer', 'null'], minimum: 1_000_000_000, maximum: 9_999_999_999, description: 'Exactly 10 digits.' });
const failureCode = (isNullable: boolean): JsonSchema => openEnum(FAILURE_CODES,
  'Operation failure code; not an HTTP error code. New codes may appear: treat an unknown one as a failure without a specific reason.', isNullable);
/** An object of an answer: these properties, all required but the `optional` ones; others may be added later. */
export const objectSchema = (description: string, properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  description,
  properties,
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
});
const list = (description: string, item: string, url: string, extra: Record<string, JsonSchema> = {}): JsonSchema => objectSchema(description, {
  object: { type: 'string', const: 'list' },
  data: { type: 'array', items: schemaRef(item) },
  has_more: { type: 'boolean', description: 'Whether more pages exist; a page may be shorter than `limit` even when true.' },
  ...extra,
  url: { type: 'string', const: url },
});

function paymentSchemas(): Record<string, JsonSchema> {
  const payment = objectSchema('A Payment, the current shape: answered for `Service-Version: 2025-09-01`.', {
    id: { type: 'string', pattern: '^pay_[A-Za-z0-9]{24}$' },
    amount: minorUnits(1, 'Minor units.'),
    currency: { ...uppercaseCurrency(), description: 'The currency of the request, canonical uppercase.' },
    status: { type: 'string', enum: [...PAYMENT_STATUSES] },
    integration_type: { type: 'string', enum: Object.keys(INTEGRATION_TYPES) },
    merchant_reference: merchantReference(),
    description: { type: ['string', 'null'] },
    card: nullable(schemaRef('Card'), 'Masked; `null` before card details are available.'),
    billing_details: nullable(schemaRef('BillingDetails')),
    failure_code: failureCode(true),
    failure_message: { type: ['string', 'null'] },
    amount_refunded: minorUnits(0, 'Total successfully refunded.'),
    amount_refundable: minorUnits(0, 'Still refundable: `amount` minus succeeded and in-progress refunds, for a `SUCCEEDED` Payment; 0 otherwise.'),
    refunds: { type: 'array', items: schemaRef('Refund'), description: 'Oldest first.' },
    status_transitions: schemaRef('StatusTransitions'),
    created_at: timestamp(false),
    livemode: { type: 'boolean', description: 'False for a test-mode (sandbox) Payment.' },
    next_action: nullable(schemaRef('NextAction'), 'Set exactly when `status` is `REQUIRES_ACTION`; `null` otherwise.'),
  });
  // next_action accompanies REQUIRES_ACTION and nothing else.
  payment.if = partial({ status: { const: 'REQUIRES_ACTION' } });
  payment.then = partial({ next_action: schemaRef('NextAction') });
  payment.else = partial({ next_action: { type: 'null' } });
  return {
    Payment: payment,
    Card: objectSchema('Masked card.', {
      brand: { type: 'string', enum: CARD_BRANDS },
      last4: { type: 'string', pattern: '^\\d{4}$' },
      exp_month: { type: 'integer', format: 'int32', minimum: 1, maximum: 12 },
      exp_year: { type: 'integer', format: 'int32' },
      cardholder_name: { type: ['string', 'null'], description: 'The submitted `holder_name` of a Direct Payment.' },
      country: { type: ['string', 'null'], pattern: '^[A-Z]{2}$', description: 'Issuing country (ISO 3166 alpha-2).' },
    }),
    BillingDetails: objectSchema('Captured billing details.', {
      email: { type: ['string', 'null'] },
      first_name: { type: ['string', 'null'] },
      last_name: { type: ['string', 'null'] },
      phone: { type: ['string', 'null'], description: 'E.164.' },
      address: nullable(schemaRef('Address')),
    }),
    Address: objectSchema('Billing address.', {
      line1: { type: ['string', 'null'] },
      city: { type: ['string', 'null'] },
      postal_code: { type: ['string', 'null'] },
      country: { type: ['string', 'null'] },
    }),
    NextAction: objectSchema('What the customer\'s browser must do next.', {
      type: { type: 'string', const: 'redirect' },
      reason: { type: 'string', enum: Object.keys(NEXT_ACTION_REASONS) },
      redirect_url: { type: 'string', format: 'uri', description: 'Opaque; may change while `REQUIRES_ACTION`: redirect again only when it changed.' },
    }),
    StatusTransitions: objectSchema('When the Payment first reached each status.', {
      requires_action_at: timestamp(true),
      processing_at: timestamp(true),
      succeeded_at: timestamp(true),
      failed_at: timestamp(true),
      expired_at: timestamp(true),
    }),
    PaymentList: list('A page of Payments, newest first.', 'Payment', '/v1/payments'),
  };
}

const lowercaseCurrency = (): JsonSchema => ({ type: 'string', pattern: '^[a-z]{3}$', description: 'Three lowercase letters (ISO 4217).' });

function shapeBSchemas(): Record<string, JsonSchema> {
  return {
    PaymentB: objectSchema('A payment in Shape B: answered for `Service-Version: 2024-06-01`. `pending` covers '
      + 'PENDING, REQUIRES_ACTION and PROCESSING; `failed` covers FAILED and EXPIRED; `refunded` once refunds that are not '
      + 'failed cover the whole amount.', {
      id: { type: 'string', pattern: '^pay_[A-Za-z0-9-]+$' },
      object: { type: 'string', const: 'payment' },
      amount: minorUnits(1, 'Minor units.'),
      currency: lowercaseCurrency(),
      status: { type: 'string', enum: [...SHAPE_B_STATUSES] },
      description: { type: ['string', 'null'] },
      card: nullable(schemaRef('CardB'), '`null` for hosted payments not yet completed.'),
      customer: schemaRef('CustomerB'),
      metadata: {
        type: 'object',
        description: `String keys and values: at most ${METADATA_MAX_KEYS} keys, keys at most ${METADATA_MAX_KEY_LENGTH} characters, values at most ${METADATA_MAX_VALUE_LENGTH}.`,
        additionalProperties: { type: 'string' },
      },
      decline_code: openEnum(SHAPE_B_DECLINE_CODES, 'Why the card was declined; `null` unless declined. New codes may appear.', true),
      decline_message: { type: ['string', 'null'] },
      redirect_url: { type: ['string', 'null'], format: 'uri', description: 'Hosted page URL for hosted payments; `null` for direct payments.' },
      refunded_at: timestamp(true),
      succeeded_at: timestamp(true),
      failed_at: timestamp(true),
      created: timestamp(false),
      livemode: { type: 'boolean', description: 'True for a live key, false for a test key.' },
    }),
    CardB: objectSchema('Masked card, Shape B: lowercase brand.', {
      brand: { type: 'string', enum: CARD_BRANDS.map((brand) => brand.toLowerCase()) },
      last4: { type: 'string', pattern: '^\\d{4}$' },
      exp_month: { type: 'integer', minimum: 1, maximum: 12 },
      exp_year: { type: 'integer' },
      country: { type: ['string', 'null'], pattern: '^[A-Z]{2}$' },
    }),
    CustomerB: objectSchema('The customer, Shape B.', { email: { type: ['string', 'null'] }, name: { type: ['string', 'null'] } }),
    PaymentListB: list('A page of Shape B payments, newest first.', 'PaymentB', '/v1/payments'),
  };
}

function refundSchema(): JsonSchema {
  const refund = objectSchema('A Refund. Read through the parent Payment\'s `refunds` array.', {
    id: { type: 'string', pattern: '^ref_[A-Za-z0-9]{24}$' },
    payment_id: { type: 'string', pattern: '^pay_[A-Za-z0-9]{24}$' },
    amount: minorUnits(1, 'Minor units.'),
    currency: { ...uppercaseCurrency(), description: 'The Payment\'s currency.' },
    merchant_reference: merchantReference(),
    reason: { type: 'string', maxLength: 50 },
    refund_type: { type: 'string', enum: Object.keys(REFUND_TYPES), description: '`FULL`: the whole Payment amount with nothing refunded or in progress before; otherwise `PARTIAL`.' },
    status: { type: 'string', enum: Object.keys(REFUND_STATUSES) },
    failure: objectSchema('Only on a `FAILED` Refund.', { code: failureCode(false), message: { type: 'string' } }),
    created_at: timestamp(false),
    updated_at: timestamp(false),
    completed_at: timestamp(true, 'Set when the Refund reaches `SUCCEEDED` or `FAILED`.'),
    livemode: { type: 'boolean' },
  }, ['failure']);
  refund.if = partial({ status: { const: 'FAILED' } });
  refund.else = partial({ failure: ABSENT });
  return refund;
}

function payoutSchemas(): Record<string, JsonSchema> {
  const failureOnly = 'Only when `FAILED`; absent otherwise.';
  const payout = objectSchema('A Payout. `PENDING` and `PROCESSING` are not final; `SUCCEEDED` and `FAILED` are.', {
    id: { type: 'string', pattern: '^po_[A-Za-z0-9]{24}$' },
    amount: minorUnits(1, 'Minor units.'),
    currency: uppercaseCurrency(),
    status: { type: 'string', enum: [...PAYOUT_STATUSES] },
    merchant_reference: merchantReference(),
    recipient: objectSchema('The recipient, names exactly as submitted.', {
      first_name: { type: 'string' },
      last_name: { type: 'string' },
      country: { type: 'string', pattern: '^[A-Z]{2}$' },
    }),
    destination: objectSchema('Masked destination card.', {
      brand: { type: 'string', enum: CARD_BRANDS },
      last4: { type: 'string', pattern: '^\\d{4}$' },
      country: { type: ['string', 'null'], pattern: '^[A-Z]{2}$' },
    }),
    failure_code: { ...failureCode(false), description: failureOnly },
    failure_message: { type: 'string', description: failureOnly },
    created_at: timestamp(false),
    updated_at: timestamp(false),
    completed_at: timestamp(true, '`null` until `SUCCEEDED` or `FAILED`.'),
    livemode: { type: 'boolean' },
  }, ['failure_code', 'failure_message']);
  payout.if = partial({ status: { const: 'FAILED' } });
  // The empty property schemas only declare the names `required` refers to (ajv strictRequired).
  payout.then = partial({ failure_code: {}, failure_message: {} }, ['failure_code', 'failure_message']);
  payout.else = partial({ failure_code: ABSENT, failure_message: ABSENT });
  return {
    Payout: payout,
    PayoutList: list('A page of Payouts, newest first.', 'Payout', '/v1/payouts', {
      total_count: { type: 'integer', minimum: 0, description: 'Matching Payouts before pagination.' },
    }),
  };
}

function webhookEndpointSchemas(): Record<string, JsonSchema> {
  const properties = (secret: boolean): Record<string, JsonSchema> => ({
    id: { type: 'string', pattern: '^we_[A-Za-z0-9]{24}$' },
    object: { type: 'string', const: 'webhook_endpoint' },
    url: { type: 'string', format: 'uri', maxLength: 2048 },
    enabled_events: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'Event types, or `*` for every type.' },
    description: { type: ['string', 'null'], maxLength: 500 },
    api_version: { type: 'string', enum: [...KNOWN_VERSIONS], description: 'The shape of the bodies this endpoint receives.' },
    status: { type: 'string', enum: ['enabled', 'disabled'] },
    disabled_reason: { type: ['string', 'null'], enum: ['failing', null], description: '`failing` when the service disabled the endpoint after 3 days without a 2xx answer; null otherwise. Enabling it again resumes the deliveries still kept.' },
    created_at: timestamp(false),
    livemode: { type: 'boolean' },
    ...(secret ? { secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'The signing secret. Shown only here: store it.' } } : {}),
  });
  return {
    WebhookEndpoint: objectSchema('A webhook endpoint. Its secret is never shown again after the create or a rotation.', properties(false)),
    WebhookEndpointWithSecret: objectSchema('A webhook endpoint with its new signing secret (the answer of a create or a rotation).', properties(true)),
    WebhookEndpointList: list('A page of webhook endpoints, newest first.', 'WebhookEndpoint', '/v1/webhook_endpoints'),
    DeletedWebhookEndpoint: objectSchema('A deleted webhook endpoint.', {
      id: { type: 'string', pattern: '^we_[A-Za-z0-9]{24}$' },
      object: { type: 'string', const: 'webhook_endpoint' },
      deleted: { type: 'boolean', const: true },
    }),
  };
}

function errorSchemas(): Record<string, JsonSchema> {
  const allCodes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
  const docUrl: JsonSchema = { type: 'string', format: 'uri', pattern: '/docs#error-[a-z_]+$', description: 'Link to this code in the reference: `{base_url}/docs#error-<code>`.' };
  const requestId: JsonSchema = { type: 'string', pattern: REQUEST_ID_PATTERN, description: 'Equals the `Request-Id` header.' };
  const message: JsonSchema = { type: 'string', description: 'For developers; may change. Do not branch on it or show it to customers.' };
  const CODE = 'Stable reason. New codes may appear: branch on the HTTP status when the code is unknown.';
  return {
    Error: objectSchema('Error envelope, Shape A. Branch on the HTTP status first, then on `error.code`.', {
      error: objectSchema('The error.', {
        code: openEnum(allCodes.filter((code) => !SHAPE_B_ONLY_CODES.has(code)), CODE),
        message,
        param: { type: 'string', description: 'The field (dotted path), header, path or query parameter involved, when there is one.' },
        doc_url: docUrl,
        request_id: requestId,
      }, ['param', 'doc_url']),
    }),
    // Errors answered before the version is known (authentication, the per-key rate limit, a bad
    // `Service-Version`) are Shape A's envelope: no `type`, `param` only when there is one. One
    // schema takes both, so that a Shape B operation has one error type.
    ErrorB: objectSchema('Error envelope, Shape B. Errors answered before the version is known (`401`, the per-key `429`, a bad '
      + '`Service-Version`) have no `type`, and `param` only when there is one.', {
      error: objectSchema('The error.', {
        type: { type: 'string', enum: ['card_error', 'invalid_request_error', 'api_error'], description: '`card_error` for declines, `api_error` for 5xx, else `invalid_request_error`.' },
        code: openEnum(allCodes, CODE),
        message,
        param: { type: ['string', 'null'] },
        decline_code: openEnum(SHAPE_B_DECLINE_CODES, 'With `card_declined`: why the card was declined. New codes may appear.'),
        doc_url: docUrl,
        request_id: requestId,
      }, ['type', 'param', 'decline_code']),
    }),
  };
}

function serviceSchemas(): Record<string, JsonSchema> {
  const check = (value: string[]): JsonSchema => ({ type: 'string', enum: value });
  const checks = (checkValues: string[]) => objectSchema('One entry per dependency.', { database: check(checkValues), temporal: check(checkValues) });
  return {
    HealthOk: objectSchema('All dependencies answer.', { status: { type: 'string', const: 'ok' }, checks: checks(['ok']) }),
    HealthUnavailable: objectSchema(
      'A dependency does not answer (`unavailable`, with the check marked `unavailable`), or the process is stopping (`shutting_down`, without checks: a balancer takes it out at once).',
      { status: { type: 'string', enum: ['unavailable', 'shutting_down'] }, checks: checks(['ok', 'unavailable']) },
      ['checks'],
    ),
    OpenApiDocument: {
      type: 'object',
      description: 'An OpenAPI 3.1 document.',
      properties: { openapi: { type: 'string', const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
      required: ['openapi', 'info', 'paths', 'components'],
      additionalProperties: true,
    },
  };
}

export function responseSchemas(): Record<string, JsonSchema> {
  return { ...paymentSchemas(), ...shapeBSchemas(), Refund: refundSchema(), ...payoutSchemas(), ...webhookEndpointSchemas(), ...errorSchemas(), ...serviceSchemas() };
}
