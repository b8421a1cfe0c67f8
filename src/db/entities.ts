// Read models and records, one declaration per table: its columns, from which its row type
// (`PaymentRow`, ...) is derived, so a field is written once. EntitySchema (no decorators) keeps the
// same definitions usable from tsc, swc and tsx alike. Money is BIGINT minor units; timestamps are Unix seconds unless named *_ms.
// The schema comes from the migrations: there, every id, key, token and hash column compares byte
// for byte on MySQL/MariaDB (a binary NO PAD collation, the default of every table and of the
// database since the byte-exact-identifiers migration) as it does on SQLite.
import { EntitySchema, type EntitySchemaColumnOptions, type EntitySchemaOptions, type ValueTransformer } from 'typeorm';
import type { WebhookEndpointStatus } from '../domain/webhook-endpoints';

/** BIGINT arrives as a string from some drivers; every amount we store fits a safe integer. */
const bigintNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : Number(value)),
};
const bool: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : Boolean(Number(value))),
};

declare const VALUE: unique symbol;
/** A column, and (for the compiler only: never set) the type of its value in a row. */
type Column<T> = EntitySchemaColumnOptions & { readonly [VALUE]: T };
type Columns = Record<string, Column<unknown>>;
const column = <T>(options: EntitySchemaColumnOptions) => options as Column<T>;

function bigint(): Column<number>;
function bigint(nullable: true): Column<number | null>;
function bigint(nullable = false) {
  return column({ type: 'bigint', nullable, transformer: bigintNumber });
}
function int(): Column<number>;
function int(nullable: true): Column<number | null>;
function int(nullable = false) {
  return column({ type: 'int', nullable });
}
/** `T` narrows the values a column holds (a status, a mode); the database keeps any text. */
function varchar<T extends string = string>(length: number): Column<T>;
function varchar<T extends string = string>(length: number, nullable: true): Column<T | null>;
function varchar(length: number, nullable = false) {
  return column({ type: 'varchar', length, nullable });
}
function text(nullable: false): Column<string>;
function text(nullable?: true): Column<string | null>;
function text(nullable = true) {
  return column({ type: 'text', nullable });
}
const boolean = () => column<boolean>({ type: 'boolean', transformer: bool });
const seq = () => column<number>({ type: 'bigint', primary: true, generated: 'increment', transformer: bigintNumber });
const primary = <T>(c: Column<T>): Column<T> => ({ ...c, primary: true });

/** A row of a table: each column's value. */
type Row<C extends Columns> = { -readonly [K in keyof C]: C[K][typeof VALUE] };
export type RowOf<E> = E extends EntitySchema<infer R> ? R : never;

function table<C extends Columns>(options: Omit<EntitySchemaOptions<Row<C>>, 'columns'> & { columns: C }): EntitySchema<Row<C>> {
  return new EntitySchema<Row<C>>(options as EntitySchemaOptions<Row<C>>);
}

export const Merchant = table({
  name: 'Merchant',
  tableName: 'merchants',
  columns: {
    id: primary(varchar(32)),
    name: varchar(255),
    default_version: varchar(10),
    /** Comma-separated, uppercase. */
    currencies: varchar(512),
    payments_enabled: boolean(),
    payouts_enabled: boolean(),
    provisioned: boolean(),
    webhook_url: varchar(2048, true),
    created_at: bigint(),
    updated_at: bigint(),
  },
});
export type MerchantRow = RowOf<typeof Merchant>;

export const WebhookSecret = table({
  name: 'WebhookSecret',
  tableName: 'webhook_secrets',
  columns: {
    id: primary(varchar(32)),
    merchant_id: varchar(32),
    /** The webhook endpoint it signs for; null: the merchant's own secret (Shape B `callback_url` deliveries). */
    endpoint_id: varchar(32, true),
    secret_ciphertext: text(false),
    created_at: bigint(),
    /** Set when rotated out: the old secret still signs until then. */
    expires_at: bigint(true),
  },
  indices: [
    { name: 'idx_webhook_secrets_merchant', columns: ['merchant_id'] },
    { name: 'idx_webhook_secrets_endpoint', columns: ['endpoint_id'] },
  ],
});
export type WebhookSecretRow = RowOf<typeof WebhookSecret>;

export type { WebhookEndpointStatus };
export type WebhookEndpointDisabledReason = 'failing';

/** A merchant's webhook endpoint in one mode. Times in ms. */
export const WebhookEndpoint = table({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  columns: {
    seq: seq(),
    id: varchar(32),
    merchant_id: varchar(32),
    livemode: boolean(),
    url: varchar(2048),
    /** JSON array of event types, or ["*"]. */
    enabled_events: text(false),
    description: varchar(500, true),
    api_version: varchar(10),
    status: varchar<WebhookEndpointStatus>(10),
    /** The endpoint the admin command's `--webhook-url` manages (one per mode). */
    operator_managed: { ...boolean(), default: false },
    created_at: bigint(),
    updated_at: bigint(),
    /** Deleted endpoints stay, so that their deliveries and attempts keep naming them. */
    deleted_at: bigint(true),
    /** Since when (ms) its deliveries fail without a 2xx in between: its circuit is open. Null while it answers. */
    failing_since: bigint(true),
    /** Why it is disabled: `failing` when the service disabled it; null otherwise. */
    disabled_reason: varchar<WebhookEndpointDisabledReason>(20, true),
    /** When (ms) a circuit sweeper next drains its queue; while one drains, the end of its lease. Null while the circuit is closed. */
    next_drain_at: bigint(true),
    /** Until when (ms) a circuit sweeper holds the endpoint to drain it. */
    drain_lease_until: bigint(true),
  },
  uniques: [{ name: 'uq_webhook_endpoints_id', columns: ['id'] }],
  indices: [{ name: 'idx_webhook_endpoints_scope', columns: ['merchant_id', 'livemode', 'seq'] }, { name: 'idx_webhook_endpoints_next_drain', columns: ['next_drain_at'] }],
});
export type WebhookEndpointRow = RowOf<typeof WebhookEndpoint>;

export type Mode = 'test' | 'live';

export const ApiKey = table({
  name: 'ApiKey',
  tableName: 'api_keys',
  columns: {
    id: primary(varchar(32)),
    merchant_id: varchar(32),
    mode: varchar<Mode>(4),
    key_hash: varchar(64),
    key_hint: varchar(32),
    can_refund: boolean(),
    expires_at: bigint(true),
    revoked_at: bigint(true),
    created_at: bigint(),
  },
  uniques: [{ name: 'uq_api_keys_hash', columns: ['key_hash'] }],
  indices: [{ name: 'idx_api_keys_merchant', columns: ['merchant_id'] }],
});
export type ApiKeyRow = RowOf<typeof ApiKey>;

export type IdempotencyState = 'processing' | 'completed';

export const IdempotencyRecord = table({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_records',
  columns: {
    seq: seq(),
    api_key_id: varchar(32),
    operation: varchar(32),
    idempotency_key: varchar(255),
    fingerprint: varchar(64),
    object_id: varchar(40),
    state: varchar<IdempotencyState>(16),
    response_status: int(true),
    response_body: text(),
    /** A claim whose lease ran out belongs to a crashed request and may be taken over. */
    locked_until_ms: bigint(),
    created_at: bigint(),
    expires_at: bigint(),
  },
  uniques: [{ name: 'uq_idempotency_scope', columns: ['api_key_id', 'operation', 'idempotency_key'] }],
  indices: [{ name: 'idx_idempotency_expiry', columns: ['expires_at'] }],
});
export type IdempotencyRecordRow = RowOf<typeof IdempotencyRecord>;

export const CardVault = table({
  name: 'CardVault',
  tableName: 'card_vault',
  columns: {
    token: primary(varchar(40)),
    merchant_id: varchar(32),
    pan_ciphertext: text(false),
    /** Gone with the card once its authorization answered; forgotten by the vault sweep past `cvcMaxAgeSeconds`. */
    cvc_ciphertext: text(true),
    created_at: bigint(),
  },
  indices: [{ name: 'idx_card_vault_created', columns: ['created_at'] }],
});
export type CardVaultRow = RowOf<typeof CardVault>;

export const Payment = table({
  name: 'Payment',
  tableName: 'payments',
  columns: {
    seq: seq(),
    id: varchar(32),
    merchant_id: varchar(32),
    livemode: boolean(),
    amount: bigint(),
    currency: varchar(3),
    status: varchar(20),
    integration_type: varchar(24),
    merchant_reference: bigint(true),
    description: text(),
    card_brand: varchar(16, true),
    card_last4: varchar(4, true),
    card_exp_month: int(true),
    card_exp_year: int(true),
    card_holder_name: varchar(255, true),
    card_country: varchar(2, true),
    /** JSON. */
    billing_details: text(),
    failure_code: varchar(40, true),
    failure_message: varchar(255, true),
    amount_refunded: bigint(),
    amount_refundable: bigint(),
    next_action_reason: varchar(32, true),
    next_action_url: varchar(2048, true),
    requires_action_at: bigint(true),
    processing_at: bigint(true),
    succeeded_at: bigint(true),
    failed_at: bigint(true),
    expired_at: bigint(true),
    refunded_at: bigint(true),
    return_url: varchar(2048, true),
    customer_ip_address: varchar(45, true),
    merchant_customer_id: varchar(255, true),
    /** JSON, Shape B. */
    metadata: text(),
    /** JSON, Shape B. */
    customer: text(),
    callback_url: varchar(2048, true),
    /** The SHA-256 of the hosted page token (domain/hosted-page.ts); rows older than the hosted-token-hash migration kept the token itself. */
    hosted_token: varchar(64, true),
    /** The token sealed with VAULT_KEY, to show the page URL again; the URLs below hold HOSTED_TOKEN_MARK in its place. */
    hosted_token_sealed: varchar(128, true),
    hosted_page_url: varchar(2048, true),
    /** Service-Version of the creating request (the browser return adds `status` for Shape B). */
    api_version: varchar(10, true),
    created_at: bigint(),
    updated_at: bigint(),
    version: int(),
  },
  uniques: [
    { name: 'uq_payments_id', columns: ['id'] },
    { name: 'uq_payments_hosted_token', columns: ['hosted_token'] },
  ],
  indices: [
    // The list's order and filters, each ending in what a page's `seq` query tests without a row read.
    { name: 'idx_payments_scope', columns: ['merchant_id', 'livemode', 'seq', 'status', 'created_at'] },
    { name: 'idx_payments_scope_status', columns: ['merchant_id', 'livemode', 'status', 'seq', 'created_at'] },
    { name: 'idx_payments_scope_created', columns: ['merchant_id', 'livemode', 'created_at'] },
    { name: 'idx_payments_scope_status_created', columns: ['merchant_id', 'livemode', 'status', 'created_at'] },
  ],
});
export type PaymentRow = RowOf<typeof Payment>;

export const Refund = table({
  name: 'Refund',
  tableName: 'refunds',
  columns: {
    seq: seq(),
    id: varchar(32),
    payment_id: varchar(32),
    merchant_id: varchar(32),
    livemode: boolean(),
    amount: bigint(),
    currency: varchar(3),
    merchant_reference: bigint(true),
    reason: varchar(50),
    refund_type: varchar(8),
    status: varchar(20),
    failure_code: varchar(40, true),
    failure_message: varchar(255, true),
    created_at: bigint(),
    updated_at: bigint(),
    completed_at: bigint(true),
    version: int(),
  },
  uniques: [{ name: 'uq_refunds_id', columns: ['id'] }],
  indices: [{ name: 'idx_refunds_payment', columns: ['payment_id', 'seq'] }],
});
export type RefundRow = RowOf<typeof Refund>;

export const Payout = table({
  name: 'Payout',
  tableName: 'payouts',
  columns: {
    seq: seq(),
    id: varchar(32),
    merchant_id: varchar(32),
    livemode: boolean(),
    amount: bigint(),
    currency: varchar(3),
    status: varchar(20),
    merchant_reference: bigint(true),
    recipient_first_name: varchar(255),
    recipient_last_name: varchar(255),
    recipient_country: varchar(2),
    destination_brand: varchar(16),
    destination_last4: varchar(4),
    destination_country: varchar(2, true),
    failure_code: varchar(40, true),
    failure_message: varchar(255, true),
    poll_attempts: int(),
    last_polled_at: bigint(true),
    created_at: bigint(),
    updated_at: bigint(),
    completed_at: bigint(true),
    version: int(),
    /** Canonical literal of the submitted initiator IP (audit only, never returned). */
    initiator_ip_address: varchar(45, true),
    /** Lowercased id, merchant reference and "first last" for the literal list search. */
    search_text: text(),
  },
  uniques: [{ name: 'uq_payouts_id', columns: ['id'] }],
  indices: [
    { name: 'idx_payouts_scope', columns: ['merchant_id', 'livemode', 'seq'] },
    { name: 'idx_payouts_scope_status', columns: ['merchant_id', 'livemode', 'status', 'seq'] },
    { name: 'idx_payouts_scope_last4', columns: ['merchant_id', 'livemode', 'destination_last4'] },
    { name: 'idx_payouts_scope_amount', columns: ['merchant_id', 'livemode', 'currency', 'amount'] },
  ],
});
export type PayoutRow = RowOf<typeof Payout>;

export const Event = table({
  name: 'Event',
  tableName: 'events',
  columns: {
    seq: seq(),
    id: varchar(32),
    merchant_id: varchar(32),
    livemode: boolean(),
    type: varchar(40),
    object_id: varchar(40),
    /** The exact JSON body delivered to the merchant. */
    payload: text(false),
    /** The body for endpoints on 2024-06-01: the event with the Shape B payment (payment events only). */
    payload_b: text(),
    /** Set for a Shape B `callback_url` delivery: posted there instead of the merchant's webhook endpoints. */
    endpoint: varchar(2048, true),
    created_at: bigint(),
    /**
     * Set while the recording worker's relay owns the first attempts of the event's deliveries (until
     * this time, ms); null once each was delivered, refused or went to a delivery workflow.
     */
    relay_lease_until_ms: bigint(true),
  },
  uniques: [{ name: 'uq_events_id', columns: ['id'] }],
  indices: [
    { name: 'idx_events_merchant', columns: ['merchant_id', 'seq'] },
    { name: 'idx_events_scope', columns: ['merchant_id', 'livemode', 'seq', 'created_at'] },
    { name: 'idx_events_scope_type', columns: ['merchant_id', 'livemode', 'type', 'seq', 'created_at'] },
    { name: 'idx_events_scope_object', columns: ['merchant_id', 'livemode', 'object_id', 'seq'] },
    { name: 'idx_events_created', columns: ['created_at'] },
  ],
});
export type EventRow = RowOf<typeof Event>;

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event to one endpoint (or to a Shape B `callback_url`), retried on its own. Times in ms. */
export const WebhookDelivery = table({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  columns: {
    seq: seq(),
    id: varchar(32),
    event_id: varchar(32),
    /** Null for a Shape B `callback_url` delivery. */
    endpoint_id: varchar(32, true),
    merchant_id: varchar(32),
    livemode: boolean(),
    /** The URL at the time of the event. */
    url: varchar(2048),
    status: varchar<WebhookDeliveryStatus>(10),
    attempts: int(),
    next_attempt_at: bigint(true),
    created_at: bigint(),
    updated_at: bigint(),
    /** Retried until then (ms); null on rows older than the column: their creation plus the retry span. */
    retry_until_ms: bigint(true),
    /** When it last got a manual attempt (the Events API's retry). */
    manual_attempt_at: bigint(true),
  },
  uniques: [
    { name: 'uq_webhook_deliveries_id', columns: ['id'] },
    { name: 'uq_webhook_deliveries_event_endpoint', columns: ['event_id', 'endpoint_id'] },
  ],
  indices: [
    { name: 'idx_webhook_deliveries_event', columns: ['event_id'] },
    { name: 'idx_webhook_deliveries_endpoint_queue', columns: ['endpoint_id', 'status', 'seq'] },
  ],
});
export type WebhookDeliveryRow = RowOf<typeof WebhookDelivery>;

export const WebhookAttempt = table({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  columns: {
    seq: seq(),
    event_id: varchar(32),
    /** The webhook_deliveries id of the delivery (an admin resend: that id and a suffix). */
    delivery_id: varchar(64),
    attempt: int(),
    endpoint: varchar(2048),
    status_code: int(true),
    error: varchar(255, true),
    latency_ms: int(),
    attempted_at_ms: bigint(),
  },
});
export type WebhookAttemptRow = RowOf<typeof WebhookAttempt>;

export const ENTITIES = [Merchant, WebhookSecret, WebhookEndpoint, ApiKey, IdempotencyRecord, CardVault, Payment, Refund, Payout, Event, WebhookDelivery, WebhookAttempt];
