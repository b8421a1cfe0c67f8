// Shape A request bodies and list queries, generated from the joi schemas the API validates with,
// so the document cannot drift from the validation. joi-to-json cannot see custom rules (currency,
// IP literal, https URL, Luhn...), so those are explained by descriptions laid over the generated
// schema; a description aimed at a field the joi schema does not have fails the build.
import type Joi from 'joi';
import parse from 'joi-to-json';
import { directPaymentSchemaA, hostedPaymentSchemaA, listPaymentsQuerySchema } from '../schemas/payments';
import { createPayoutSchema, listPayoutsQuerySchema } from '../schemas/payouts';
import { createRefundSchema } from '../schemas/refunds';
import { listEventsQuerySchema, retryEventSchema } from '../schemas/events';
import { createWebhookEndpointSchema, listWebhookEndpointsQuerySchema, rotateWebhookSecretSchema, updateWebhookEndpointSchema } from '../schemas/webhook-endpoints';
import { EVENT_TYPES } from '../../domain/events';
import { MAX_CHARACTERS_META } from '../schemas/common';
import { PAYMENT_STATUSES } from '../../domain/payment';
import { PAYOUT_STATUSES } from '../../domain/payout';
import { MAX_SEARCH_LENGTH } from '../../domain/payout-search';
import { CARD_BRANDS } from './response-schemas';
import type { JsonSchema, ParameterObject } from './types';

export function joiToJsonSchema(schema: Joi.Schema): JsonSchema {
  return withCharacterBounds(parse(schema, 'open-api-3.1') as JsonSchema);
}

/**
 * joi's own `max` counts UTF-16 units, so character limits are a custom rule (`text()`) that
 * joi-to-json cannot see; it leaves its bound as a meta key, stated here as `maxLength`, which JSON
 * Schema counts in code points as the API does.
 */
function withCharacterBounds(node: unknown): JsonSchema {
  if (Array.isArray(node)) {
    node.forEach(withCharacterBounds);
  } else if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    if (typeof record[MAX_CHARACTERS_META] === 'number') {
      record.maxLength = record[MAX_CHARACTERS_META];
      delete record[MAX_CHARACTERS_META];
    }
    Object.values(record).forEach(withCharacterBounds);
  }
  return node as JsonSchema;
}

const CURRENCY = 'Three-letter ISO 4217 code, case-insensitive, surrounding whitespace allowed. Not three letters after trimming: '
  + '`parameter_invalid`; not enabled for the account: `422 currency_not_supported`.';
const MERCHANT_REFERENCE = 'Exactly 10 digits. Not an idempotency mechanism.';
const IP_LITERAL = 'One literal IPv4 or IPv6 address: no hostname, port, zone or comma-separated list.';
const RETURN_URL = 'Absolute `https` URL without credentials (plain `http` only for `localhost`/`127.0.0.1` with a test key). '
  + 'Where the browser returns, with `payment_id` added; the return never proves payment success.';
const AMOUNT = 'Minor units of the currency (its ISO 4217 exponent).';
const CREATED_GTE = 'Created at or after this Unix timestamp (inclusive).';
const CREATED_LT = 'Created before this Unix timestamp (exclusive).';
const codeList = (values: readonly string[]) => values.map((value) => `\`${value}\``).join(', ');

const PAYMENT_NOTES: Record<string, string> = {
  amount: AMOUNT,
  currency: CURRENCY,
  merchant_reference: MERCHANT_REFERENCE,
  customer_ip_address: IP_LITERAL,
  return_url: RETURN_URL,
  description: 'Merchant description.',
  'billing_details.email': 'E-mail address.',
  'billing_details.phone': 'E.164: a plus sign, then 2 to 15 digits, the first not zero.',
};

interface RequestSchemaSource {
  joi: Joi.Schema;
  /** Descriptions by dotted field path. */
  notes: Record<string, string>;
}

const REQUEST_BODIES: Record<string, RequestSchemaSource> = {
  DirectPaymentRequest: {
    joi: directPaymentSchemaA,
    notes: {
      ...PAYMENT_NOTES,
      'payment_method_data.card.number': '12 to 19 digits, Luhn-valid. A test card with a live key is `parameter_invalid`. Not part of the idempotent identity.',
      'payment_method_data.card.exp_year': 'Four digits. An expired card gives a `FAILED` Payment with `expired_card`, not an HTTP error.',
      'payment_method_data.card.cvc': '3 or 4 digits. Never stored.',
    },
  },
  HostedPaymentRequest: {
    joi: hostedPaymentSchemaA,
    notes: { ...PAYMENT_NOTES, billing_details: 'Prefills the hosted form.' },
  },
  RefundRequest: {
    joi: createRefundSchema,
    notes: {
      payment_id: 'The parent Payment, which must be `SUCCEEDED`. An unknown id is `404 object_not_found`.',
      amount: `${AMOUNT} At most the Payment's \`amount_refundable\`, else \`422 amount_exceeds_refundable\`.`,
      reason: 'Why the refund is made.',
      merchant_reference: MERCHANT_REFERENCE,
    },
  },
  PayoutRequest: {
    joi: createPayoutSchema,
    notes: {
      amount: AMOUNT,
      currency: CURRENCY,
      initiator_ip_address: `IP address of the person initiating the Payout. ${IP_LITERAL}`,
      'recipient.first_name': '1 to 255 characters, at least one not whitespace. Kept exactly as sent, no trimming.',
      'recipient.last_name': '1 to 255 characters, at least one not whitespace. Kept exactly as sent, no trimming.',
      'recipient.country': 'Two-letter ISO 3166 country code, case-insensitive.',
      'destination.card_number': 'A Visa or Mastercard number, 12 to 19 digits, Luhn-valid. Invalid: `422 invalid_card`; another brand: '
        + '`422 unsupported_card` (both with param `destination.card_number`).',
      merchant_reference: MERCHANT_REFERENCE,
    },
  },
  RetryEventRequest: {
    joi: retryEventSchema,
    notes: { webhook_endpoint_id: 'Only this endpoint (one the event was sent to); without it, every endpoint the event was sent to.' },
  },
};

const ENDPOINT_URL = 'Absolute `http` or `https` URL without credentials, at most 2048 characters. Live mode: it must resolve to public '
  + 'addresses only. Test mode: public addresses, `localhost` and `127.0.0.1` too, but never a port of the service itself. Refused: '
  + '`400 parameter_invalid`, param `url`.';
const ENABLED_EVENTS = `Non-empty: event types (${codeList(EVENT_TYPES)}), or \`*\` for every type, including types added later.`;
const ENDPOINT_DESCRIPTION = 'Your note on the endpoint; `null` clears it.';

REQUEST_BODIES.WebhookEndpointRequest = {
  joi: createWebhookEndpointSchema,
  notes: {
    url: ENDPOINT_URL,
    enabled_events: ENABLED_EVENTS,
    description: ENDPOINT_DESCRIPTION,
    api_version: 'The body\'s shape: `2025-09-01` the Shape A snapshot; `2024-06-01` the Shape B payment for payment events (refund and '
      + 'payout events have one shape). Default: the account\'s default version.',
  },
};
REQUEST_BODIES.WebhookEndpointUpdateRequest = {
  joi: updateWebhookEndpointSchema,
  notes: {
    url: ENDPOINT_URL,
    enabled_events: ENABLED_EVENTS,
    description: ENDPOINT_DESCRIPTION,
    status: '`disabled`: no new deliveries, and pending retries stop. `enabled`: deliveries resume with the next event.',
  },
};
REQUEST_BODIES.RotateWebhookSecretRequest = {
  joi: rotateWebhookSecretSchema,
  notes: { grace_period_seconds: 'How long the current secrets keep signing next to the new one. Default 86400 (a day).' },
};

const REQUEST_QUERIES: Record<string, RequestSchemaSource> = {
  ListWebhookEndpointsQuery: {
    joi: listWebhookEndpointsQuerySchema,
    notes: {
      limit: 'Page size.',
      starting_after: 'Webhook endpoint id: the page after it (newer-to-older order). Not with `ending_before`.',
      ending_before: 'Webhook endpoint id: the page before it. Not with `starting_after`.',
    },
  },
  ListPaymentsQuery: {
    joi: listPaymentsQuerySchema,
    notes: {
      limit: 'Page size.',
      starting_after: 'Payment id: the page after it (newer-to-older order). Not with `ending_before`.',
      ending_before: 'Payment id: the page before it. Not with `starting_after`.',
      status: `Repeatable. Spelled per shape: ${codeList(PAYMENT_STATUSES)} (Shape A); \`pending\`, \`succeeded\`, \`failed\`, \`refunded\` (Shape B).`,
      'created[gte]': CREATED_GTE,
      'created[lt]': CREATED_LT,
    },
  },
  ListPayoutsQuery: {
    joi: listPayoutsQuerySchema,
    notes: {
      limit: 'Page size.',
      starting_after: 'Payout id (`po_` and 24 letters or digits): the page after it. Not with `ending_before`.',
      ending_before: 'Payout id: the page before it. Not with `starting_after`.',
      search: `Literal, case-insensitive text (\`%\` and \`_\` are plain characters), at most ${MAX_SEARCH_LENGTH} characters, no control characters.`,
      status: `Repeatable: ${codeList(PAYOUT_STATUSES)}.`,
      currency: 'Repeatable ISO 4217 code, case-insensitive.',
      card_brand: `Repeatable: ${codeList(CARD_BRANDS)} (case-insensitive).`,
      card_last4: 'Last four digits of the destination card.',
      'created[gte]': CREATED_GTE,
      'created[lt]': CREATED_LT,
      'amount[gte]': 'Amount at least this many minor units.',
      'amount[lte]': 'Amount at most this many minor units.',
    },
  },
  ListEventsQuery: {
    joi: listEventsQuerySchema,
    notes: {
      limit: 'Page size.',
      starting_after: 'Event id: the page after it (newer-to-older order). Not with `ending_before`.',
      ending_before: 'Event id: the page before it. Not with `starting_after`.',
      type: 'Repeatable: an event type, or a prefix wildcard such as `payment.*` (every `payment.` type). An event matches any one.',
      object_id: 'Only the events of this Payment, Refund or Payout.',
      'created[gte]': CREATED_GTE,
      'created[lt]': CREATED_LT,
      delivery_success: '`true`: every delivery of the event succeeded (an event sent to no endpoint counts); `false`: at least one has not (yet).',
    },
  },
};

/** The property schema at a dotted path, through nested objects; throws if the path is not there. */
function propertyAt(schema: JsonSchema, dottedPath: string, owner: string): JsonSchema {
  let current = schema;
  for (const segment of dottedPath.split('.')) {
    const next = current.properties?.[segment];
    if (!next) throw new Error(`OpenAPI note for ${owner}.${dottedPath}: the joi schema has no such field`);
    current = next;
  }
  return current;
}

function annotated(source: RequestSchemaSource, owner: string): JsonSchema {
  const schema = joiToJsonSchema(source.joi);
  for (const [dottedPath, note] of Object.entries(source.notes)) {
    // Keys with brackets (`created[gte]`) are one property, not a path.
    const target = dottedPath.includes('[') ? schema.properties?.[dottedPath] : propertyAt(schema, dottedPath, owner);
    if (!target) throw new Error(`OpenAPI note for ${owner}.${dottedPath}: the joi schema has no such field`);
    target.description = note;
  }
  return schema;
}

/** Component schemas of the Shape A request bodies, by component name. */
export function requestBodySchemas(): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(REQUEST_BODIES).map(([name, source]) => [name, annotated(source, name)]));
}

/** The joi schemas behind each generated component, for the drift check. */
export const JOI_SOURCES: Record<string, Joi.Schema> = Object.fromEntries(
  [...Object.entries(REQUEST_BODIES), ...Object.entries(REQUEST_QUERIES)].map(([name, source]) => [name, source.joi]),
);

/** The query parameters of a list, one per key of its joi query schema. */
export function queryParameters(name: string): ParameterObject[] {
  const source = REQUEST_QUERIES[name];
  if (!source) throw new Error(`unknown query schema ${name}`);
  const schema = annotated(source, name);
  return Object.entries(schema.properties ?? {}).map(([key, property]) => {
    const { description, ...valueSchema } = property;
    const repeatable = valueSchema.type === 'array' || (valueSchema.anyOf ?? []).some((option) => option.type === 'array');
    return {
      name: key,
      in: 'query',
      description: description ?? '',
      required: (schema.required ?? []).includes(key),
      schema: valueSchema,
      ...(repeatable ? { style: 'form', explode: true } : {}),
    } satisfies ParameterObject;
  });
}
