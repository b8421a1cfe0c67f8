// Names for the generated types (./generated/openapi.ts, from the service's own document): the
// objects the API answers with, the bodies and list parameters it takes, and the webhook events.
import type { components, operations } from './generated/openapi';

type Schemas = components['schemas'];

/** The API version these types describe; every request pins it in `Service-Version`. */
export const API_VERSION: components['parameters']['ServiceVersion'] = '2025-09-01';

export type Payment = Schemas['Payment'];
export type Refund = Schemas['Refund'];
export type Payout = Schemas['Payout'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
/** A webhook endpoint with its signing secret: the answer of a create or a rotation only. */
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type DeletedWebhookEndpoint = Schemas['DeletedWebhookEndpoint'];
/** An event as the Events API lists it. */
export type Event = Schemas['Event'];
/** An event with its deliveries to each webhook endpoint and every attempt. */
export type EventWithDeliveries = Schemas['EventWithDeliveries'];

export type PaymentEvent = Schemas['PaymentEvent'];
export type RefundEvent = Schemas['RefundEvent'];
export type PayoutEvent = Schemas['PayoutEvent'];
/** What a webhook endpoint receives: narrow on `type` to get the object's type. */
export type WebhookEvent = PaymentEvent | RefundEvent | PayoutEvent;
export type WebhookEventType = WebhookEvent['type'];

export type PaymentCreateParams = Schemas['DirectPaymentRequest'];
export type HostedPaymentCreateParams = Schemas['HostedPaymentRequest'];
export type RefundCreateParams = Schemas['RefundRequest'];
export type PayoutCreateParams = Schemas['PayoutRequest'];
export type WebhookEndpointCreateParams = Schemas['WebhookEndpointRequest'];
export type WebhookEndpointUpdateParams = Schemas['WebhookEndpointUpdateRequest'];
export type WebhookEndpointRotateSecretParams = Schemas['RotateWebhookSecretRequest'];
export type EventRetryParams = Schemas['RetryEventRequest'];

type QueryOf<Id extends keyof operations> = NonNullable<operations[Id]['parameters']['query']>;
export type PaymentListParams = QueryOf<'listPayments'>;
export type PayoutListParams = QueryOf<'listPayouts'>;
export type EventListParams = QueryOf<'listEvents'>;
export type WebhookEndpointListParams = QueryOf<'listWebhookEndpoints'>;

export type ErrorCode = Schemas['Error']['error']['code'];

/** Options of one request. */
export interface RequestOptions {
  /**
   * The `Idempotency-Key` of a POST: the same key with the same body replays the first answer, so
   * a retry never creates a second object. Without it the client generates one per call and keeps
   * it across that call's retries.
   */
  idempotencyKey?: string;
}
