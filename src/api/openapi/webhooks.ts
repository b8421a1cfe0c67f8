// The events the service POSTs to a merchant's webhook endpoints, as the document's top-level
// `webhooks`: one entry per event type the service raises (EVENT_TYPES), its body the event
// envelope around a snapshot of the object in the document's shape (an endpoint's `api_version`
// chooses it: the Shape B payment for payment events to an endpoint on 2024-06-01; refunds and
// payouts have one shape), its headers the Standard Webhooks signature.
import { EVENT_TYPES, type EventObject, type EventType } from '../../domain/events';
import { example } from './examples';
import { objectSchema, timestamp } from './response-schemas';
import type { Shape } from '../../representations/versions';
import type { ExampleObject, JsonSchema, OperationObject, ParameterObject, ResponseObject } from './types';
import { schemaRef } from './types';

const EVENT_ID_PATTERN = '^evt_[0-9a-f]{24}$';

const OBJECTS: Record<EventObject, { snapshot: string; envelope: string; read: string }> = {
  payment: { snapshot: 'Payment', envelope: 'PaymentEvent', read: '`GET /v1/payments/{id}`' },
  refund: { snapshot: 'Refund', envelope: 'RefundEvent', read: 'the parent Payment\'s `refunds` (`GET /v1/payments/{id}`)' },
  payout: { snapshot: 'Payout', envelope: 'PayoutEvent', read: '`GET /v1/payouts/{payout_id}`' },
};

// Keyed by the event type union, so a new event type fails to compile until it is described here.
const WHEN: Record<EventType, string> = {
  'payment.requires_action': 'A Payment needs the customer\'s browser: 3D Secure or the hosted payment page (`next_action`).',
  'payment.processing': 'A Payment was authenticated and is being processed.',
  'payment.succeeded': 'A Payment succeeded.',
  'payment.failed': 'A Payment failed; `failure_code` says why.',
  'payment.expired': 'The customer did not complete a Payment\'s required action in time.',
  'payment.refunded': 'A Refund of a Payment succeeded (sent each time one does): the Payment after it, its `amount_refunded`, `amount_refundable` and `refunds` including that Refund.',
  'refund.processing': 'A Refund was submitted; the funds are not returned yet.',
  'refund.succeeded': 'A Refund succeeded: the funds are on their way back to the card.',
  'refund.failed': 'A Refund failed; `failure.code` says why.',
  'payout.pending': 'A Payout\'s submission got an uncertain answer; the service resolves it.',
  'payout.processing': 'A Payout was accepted by the provider and is being processed.',
  'payout.succeeded': 'A Payout succeeded.',
  'payout.failed': 'A Payout failed; `failure_code` says why.',
};

/** Example snapshots (names in `examples.ts`) for the event types that have one, per shape. */
const SNAPSHOT_EXAMPLES_A: Partial<Record<EventType, string>> = {
  'payment.requires_action': 'paymentRequiresAction',
  'payment.processing': 'paymentProcessing',
  'payment.succeeded': 'paymentSucceededWithRefund',
  'payment.failed': 'paymentFailed',
  'payment.refunded': 'paymentSucceededWithRefund',
  'refund.processing': 'refundProcessing',
  'refund.failed': 'refundFailed',
  'payout.pending': 'payoutPending',
  'payout.succeeded': 'payoutSucceeded',
  'payout.failed': 'payoutFailed',
};
const SNAPSHOT_EXAMPLES: Record<Shape, Partial<Record<EventType, string>>> = {
  A: SNAPSHOT_EXAMPLES_A,
  // Payment events carry the Shape B payment; the others are as in Shape A.
  B: { ...Object.fromEntries(Object.entries(SNAPSHOT_EXAMPLES_A).filter(([type]) => !type.startsWith('payment.'))), 'payment.succeeded': 'paymentSucceededB' },
};

const objectOf = (type: EventType): EventObject => type.slice(0, type.indexOf('.')) as EventObject;

/** `payment.requires_action` → `paymentRequiresActionEvent`. */
const operationId = (type: EventType): string => `${type.split(/[._]/).map((word, index) => (index ? word[0]!.toUpperCase() + word.slice(1) : word)).join('')}Event`;

/**
 * The signature headers, written out in each webhook rather than referenced as components:
 * oapi-codegen generates types for the webhooks' parameters but prunes components that no path
 * uses, and its code then does not compile.
 */
const WEBHOOK_PARAMETERS: Record<string, ParameterObject> = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id, the same on every retry: deduplicate on it. For a webhook it is the body\'s `id`.',
    schema: { type: 'string', pattern: EVENT_ID_PATTERN },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'When this attempt was signed (Unix seconds). Reject attempts too far from your clock (Standard Webhooks libraries allow 5 minutes).',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: 'Standard Webhooks signatures, space-separated: `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` '
      + 'with the endpoint\'s `whsec_` secret. Two while a rotated secret is in its grace period; accept the event when one matches.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
};

/** The envelope of the events about one kind of object. */
function envelope(object: EventObject, shape: Shape): JsonSchema {
  const types = EVENT_TYPES.filter((type) => objectOf(type) === object);
  const { snapshot, read } = OBJECTS[object];
  return objectSchema(`An event about a ${snapshot}: delivered at least once and in any order. Reconcile by reading ${read}.`, {
    id: { type: 'string', pattern: EVENT_ID_PATTERN, description: 'Unique per event; equals the `webhook-id` header.' },
    type: { type: 'string', enum: types },
    created_at: timestamp(false, 'When the change happened (Unix seconds).'),
    livemode: { type: 'boolean', description: 'False for a test-mode event.' },
    data: objectSchema('The object.', {
      object: object === 'payment' && shape === 'B'
        ? { ...schemaRef('PaymentB'), description: 'The payment as it was at the change, in Shape B: what an endpoint on `2024-06-01` receives.' }
        : object === 'payment'
          ? { ...schemaRef(snapshot), description: 'The Payment as it was at the change: what an endpoint on `2025-09-01` receives.' }
          : { ...schemaRef(snapshot), description: `The ${snapshot} as it was at the change (Shape A, whatever the endpoint's \`api_version\`).` },
    }),
  });
}

/** The event envelopes of a document in `shape`. */
export function eventSchemas(shape: Shape): Record<string, JsonSchema> {
  return Object.fromEntries((Object.keys(OBJECTS) as EventObject[]).map((object) => [OBJECTS[object].envelope, envelope(object, shape)]));
}

const EXAMPLE_EVENT_ID = 'evt_5b1e0c9a7d3f42e8a6c4b2d0';
const EXAMPLE_CREATED = 1767229200;

function eventExample(type: EventType, shape: Shape): Record<string, ExampleObject> | undefined {
  const name = SNAPSHOT_EXAMPLES[shape][type];
  if (!name) return undefined;
  const value = { id: EXAMPLE_EVENT_ID, type, created_at: EXAMPLE_CREATED, livemode: false, data: { object: example(name).value } };
  return { [operationId(type)]: { summary: type, value } };
}

const RESPONSES: Record<string, ResponseObject> = {
  '2XX': { description: 'Received. Any 2xx within 10 seconds; answer first, then process.' },
  default: { description: 'Anything else, or no answer within 10 seconds: the event is retried to this endpoint with exponential backoff '
    + 'for up to 3 days, on its own schedule (other endpoints are not held up).' },
};

const SIGNATURE_HEADERS: ParameterObject[] = Object.values(WEBHOOK_PARAMETERS);

function webhook(type: EventType, shape: Shape): OperationObject {
  const object = objectOf(type);
  const examples = eventExample(type, shape);
  return {
    operationId: operationId(type),
    tags: ['Events'],
    summary: type,
    description: `${WHEN[type]} The body is a \`${OBJECTS[object].envelope}\` with \`type\` \`${type}\`, POSTed to every enabled `
      + 'webhook endpoint of the mode whose `enabled_events` has this type or `*`.',
    security: [],
    parameters: SIGNATURE_HEADERS,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          // The envelope, with `type` narrowed to this event's.
          schema: { allOf: [schemaRef(OBJECTS[object].envelope), { type: 'object', properties: { type: { type: 'string', const: type } }, required: ['type'] }] },
          ...(examples ? { examples } : {}),
        },
      },
    },
    responses: RESPONSES,
    'x-shapes': [object === 'payment' ? shape : 'A'],
  };
}

/** The `webhooks` section of a document in `shape`: one entry per event type. */
export function webhooks(shape: Shape): Record<string, { post: OperationObject }> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, { post: webhook(type, shape) }]));
}

/**
 * The `callbacks` of `POST /v1/payments/hpp`: a Shape B hosted payment with a `callback_url` is
 * POSTed there in Shape B once it completes, through the same signing and delivery as the webhooks.
 */
export function shapeBCallbacks(): Record<string, Record<string, { post: OperationObject }>> {
  return {
    paymentCompletedB: {
      '{$request.body#/callback_url}': {
        post: {
          operationId: 'paymentCompletedCallbackB',
          tags: ['Events'],
          summary: 'Shape B `callback_url`',
          description: 'When a Shape B hosted payment with a `callback_url` completes (`succeeded`, or `failed` when declined or expired), '
            + 'the service POSTs the payment, in Shape B, to that URL: once per payment, signed, retried and deduplicated like the webhooks. '
            + 'The merchant\'s webhook endpoints still get their events. Signed with the account\'s own secret (the one the operator '
            + 'handed out with the account), not an endpoint\'s.',
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: schemaRef('PaymentB'), examples: { paymentSucceededB: example('paymentSucceededB') } } },
          },
          responses: RESPONSES,
          'x-shapes': ['B'],
        },
      },
    },
  };
}
