// Read models and records. EntitySchema (no decorators) keeps the same definitions usable from
// tsc, swc and tsx alike. Money is BIGINT minor units; timestamps are Unix seconds unless named *_ms.
// The schema comes from the migrations: there, every id, key, token and hash column compares byte
// for byte on MySQL/MariaDB (a binary NO PAD collation, the default of every table and of the
// database since migration 1765300000000) as it does on SQLite.
import { EntitySchema, type ValueTransformer } from 'typeorm';
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

const bigint = (nullable = false) => ({ type: 'bigint' as const, nullable, transformer: bigintNumber });
const boolean = () => ({ type: 'boolean' as const, transformer: bool });
const varchar = (length: number, nullable = false) => ({ type: 'varchar' as const, length, nullable });
const text = (nullable = true) => ({ type: 'text' as const, nullable });
const seq = () => ({ type: 'bigint' as const, primary: true, generated: 'increment' as const, transformer: bigintNumber });

export interface MerchantRow {
  id: string;
  name: string;
  default_version: string;
  currencies: string; // comma-separated, uppercase
  payments_enabled: boolean;
  payouts_enabled: boolean;
  provisioned: boolean;
  webhook_url: string | null;
  created_at: number;
  updated_at: number;
}

export const Merchant = new EntitySchema<MerchantRow>({
  name: 'Merchant',
  tableName: 'merchants',
  columns: {
    id: { ...varchar(32), primary: true },
    name: varchar(255),
    default_version: varchar(10),
    currencies: varchar(512),
    payments_enabled: boolean(),
    payouts_enabled: boolean(),
    provisioned: boolean(),
    webhook_url: varchar(2048, true),
    created_at: bigint(),
    updated_at: bigint(),
  },
});

export interface WebhookSecretRow {
  id: string;
  merchant_id: string;
  /** The webhook endpoint it signs for; null: the merchant's own secret (Shape B `callback_url` deliveries). */
  endpoint_id: string | null;
  secret_ciphertext: string;
  created_at: number;
  /** Set when rotated out: the old secret still signs until then. */
  expires_at: number | null;
}

export const WebhookSecret = new EntitySchema<WebhookSecretRow>({
  name: 'WebhookSecret',
  tableName: 'webhook_secrets',
  columns: {
    id: { ...varchar(32), primary: true },
    merchant_id: varchar(32),
    endpoint_id: varchar(32, true),
    secret_ciphertext: text(false),
    created_at: bigint(),
    expires_at: bigint(true),
  },
  indices: [
    { name: 'idx_webhook_secrets_merchant', columns: ['merchant_id'] },
    { name: 'idx_webhook_secrets_endpoint', columns: ['endpoint_id'] },
  ],
});

export type { WebhookEndpointStatus };

/** A merchant's webhook endpoint in one mode. Times in ms. */
export interface WebhookEndpointRow {
  seq: number;
  id: string;
  merchant_id: string;
  livemode: boolean;
  url: string;
  /** JSON array of event types, or ["*"]. */
  enabled_events: string;
  description: string | null;
  api_version: string;
  status: WebhookEndpointStatus;
  /** The endpoint the admin command's `--webhook-url` manages (one per mode). */
  operator_managed: boolean;
  created_at: number;
  updated_at: number;
  /** Deleted endpoints stay, so that their deliveries and attempts keep naming them. */
  deleted_at: number | null;
}

export const WebhookEndpoint = new EntitySchema<WebhookEndpointRow>({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  columns: {
    seq: seq(),
    id: varchar(32),
    merchant_id: varchar(32),
    livemode: boolean(),
    url: varchar(2048),
    enabled_events: text(false),
    description: varchar(500, true),
    api_version: varchar(10),
    status: varchar(10),
    operator_managed: { ...boolean(), default: false },
    created_at: bigint(),
    updated_at: bigint(),
    deleted_at: bigint(true),
  },
  uniques: [{ name: 'uq_webhook_endpoints_id', columns: ['id'] }],
  indices: [{ name: 'idx_webhook_endpoints_scope', columns: ['merchant_id', 'livemode', 'seq'] }],
});

export type Mode = 'test' | 'live';

export interface ApiKeyRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  key_hash: string;
  key_hint: string;
  can_refund: boolean;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export const ApiKey = new EntitySchema<ApiKeyRow>({
  name: 'ApiKey',
  tableName: 'api_keys',
  columns: {
    id: { ...varchar(32), primary: true },
    merchant_id: varchar(32),
    mode: varchar(4),
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

export type IdempotencyState = 'processing' | 'completed';

export interface IdempotencyRecordRow {
  seq: number;
  api_key_id: string;
  operation: string;
  idempotency_key: string;
  fingerprint: string;
  object_id: string;
  state: IdempotencyState;
  response_status: number | null;
  response_body: string | null;
  /** A claim whose lease ran out belongs to a crashed request and may be taken over. */
  locked_until_ms: number;
  created_at: number;
  expires_at: number;
}

export const IdempotencyRecord = new EntitySchema<IdempotencyRecordRow>({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_records',
  columns: {
    seq: seq(),
    api_key_id: varchar(32),
    operation: varchar(32),
    idempotency_key: varchar(255),
    fingerprint: varchar(64),
    object_id: varchar(40),
    state: varchar(16),
    response_status: { type: 'int', nullable: true },
    response_body: { type: 'text', nullable: true },
    locked_until_ms: bigint(),
    created_at: bigint(),
    expires_at: bigint(),
  },
  uniques: [{ name: 'uq_idempotency_scope', columns: ['api_key_id', 'operation', 'idempotency_key'] }],
  indices: [{ name: 'idx_idempotency_expiry', columns: ['expires_at'] }],
});

export interface CardVaultRow {
  token: string;
  merchant_id: string;
  pan_ciphertext: string;
  /** Gone with the card once its authorization answered; forgotten by the vault sweep past `cvcMaxAgeSeconds`. */
  cvc_ciphertext: string | null;
  created_at: number;
}

export const CardVault = new EntitySchema<CardVaultRow>({
  name: 'CardVault',
  tableName: 'card_vault',
  columns: {
    token: { ...varchar(40), primary: true },
    merchant_id: varchar(32),
    pan_ciphertext: text(false),
    cvc_ciphertext: text(true),
    created_at: bigint(),
  },
  indices: [{ name: 'idx_card_vault_created', columns: ['created_at'] }],
});

export interface PaymentRow {
  seq: number;
  id: string;
  merchant_id: string;
  livemode: boolean;
  amount: number;
  currency: string;
  status: string;
  integration_type: string;
  merchant_reference: number | null;
  description: string | null;
  card_brand: string | null;
  card_last4: string | null;
  card_exp_month: number | null;
  card_exp_year: number | null;
  card_holder_name: string | null;
  card_country: string | null;
  billing_details: string | null; // JSON
  failure_code: string | null;
  failure_message: string | null;
  amount_refunded: number;
  amount_refundable: number;
  next_action_reason: string | null;
  next_action_url: string | null;
  requires_action_at: number | null;
  processing_at: number | null;
  succeeded_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  refunded_at: number | null;
  return_url: string | null;
  customer_ip_address: string | null;
  merchant_customer_id: string | null;
  metadata: string | null; // JSON, Shape B
  customer: string | null; // JSON, Shape B
  callback_url: string | null;
  hosted_token: string | null;
  hosted_page_url: string | null;
  /** Service-Version of the creating request (the browser return adds `status` for Shape B). */
  api_version: string | null;
  created_at: number;
  updated_at: number;
  version: number;
}

export const Payment = new EntitySchema<PaymentRow>({
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
    card_exp_month: { type: 'int', nullable: true },
    card_exp_year: { type: 'int', nullable: true },
    card_holder_name: varchar(255, true),
    card_country: varchar(2, true),
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
    metadata: text(),
    customer: text(),
    callback_url: varchar(2048, true),
    hosted_token: varchar(64, true),
    hosted_page_url: varchar(2048, true),
    api_version: varchar(10, true),
    created_at: bigint(),
    updated_at: bigint(),
    version: { type: 'int' },
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

export interface RefundRow {
  seq: number;
  id: string;
  payment_id: string;
  merchant_id: string;
  livemode: boolean;
  amount: number;
  currency: string;
  merchant_reference: number | null;
  reason: string;
  refund_type: string;
  status: string;
  failure_code: string | null;
  failure_message: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  version: number;
}

export const Refund = new EntitySchema<RefundRow>({
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
    version: { type: 'int' },
  },
  uniques: [{ name: 'uq_refunds_id', columns: ['id'] }],
  indices: [{ name: 'idx_refunds_payment', columns: ['payment_id', 'seq'] }],
});

export interface PayoutRow {
  seq: number;
  id: string;
  merchant_id: string;
  livemode: boolean;
  amount: number;
  currency: string;
  status: string;
  merchant_reference: number | null;
  recipient_first_name: string;
  recipient_last_name: string;
  recipient_country: string;
  destination_brand: string;
  destination_last4: string;
  destination_country: string | null;
  failure_code: string | null;
  failure_message: string | null;
  poll_attempts: number;
  last_polled_at: number | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  version: number;
  /** Canonical literal of the submitted initiator IP (audit only, never returned). */
  initiator_ip_address: string | null;
  /** Lowercased id, merchant reference and "first last" for the literal list search. */
  search_text: string | null;
}

export const Payout = new EntitySchema<PayoutRow>({
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
    poll_attempts: { type: 'int' },
    last_polled_at: bigint(true),
    created_at: bigint(),
    updated_at: bigint(),
    completed_at: bigint(true),
    version: { type: 'int' },
    initiator_ip_address: varchar(45, true),
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

export interface EventRow {
  seq: number;
  id: string;
  merchant_id: string;
  livemode: boolean;
  type: string;
  object_id: string;
  /** The exact JSON body delivered to the merchant. */
  payload: string;
  /** The body for endpoints on 2024-06-01: the event with the Shape B payment (payment events only). */
  payload_b: string | null;
  /** Set for a Shape B `callback_url` delivery: posted there instead of the merchant's webhook endpoints. */
  endpoint: string | null;
  created_at: number;
  /**
   * Set while the recording worker's relay owns the first attempts of the event's deliveries (until
   * this time, ms); null once each was delivered, refused or went to a delivery workflow.
   */
  relay_lease_until_ms: number | null;
}

export const Event = new EntitySchema<EventRow>({
  name: 'Event',
  tableName: 'events',
  columns: {
    seq: seq(),
    id: varchar(32),
    merchant_id: varchar(32),
    livemode: boolean(),
    type: varchar(40),
    object_id: varchar(40),
    payload: text(false),
    payload_b: text(),
    endpoint: varchar(2048, true),
    created_at: bigint(),
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

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event to one endpoint (or to a Shape B `callback_url`), retried on its own. Times in ms. */
export interface WebhookDeliveryRow {
  seq: number;
  id: string;
  event_id: string;
  /** Null for a Shape B `callback_url` delivery. */
  endpoint_id: string | null;
  merchant_id: string;
  livemode: boolean;
  /** The URL at the time of the event. */
  url: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
}

export const WebhookDelivery = new EntitySchema<WebhookDeliveryRow>({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  columns: {
    seq: seq(),
    id: varchar(32),
    event_id: varchar(32),
    endpoint_id: varchar(32, true),
    merchant_id: varchar(32),
    livemode: boolean(),
    url: varchar(2048),
    status: varchar(10),
    attempts: { type: 'int' },
    next_attempt_at: bigint(true),
    created_at: bigint(),
    updated_at: bigint(),
  },
  uniques: [
    { name: 'uq_webhook_deliveries_id', columns: ['id'] },
    { name: 'uq_webhook_deliveries_event_endpoint', columns: ['event_id', 'endpoint_id'] },
  ],
  indices: [{ name: 'idx_webhook_deliveries_event', columns: ['event_id'] }],
});

export interface WebhookAttemptRow {
  seq: number;
  event_id: string;
  /** The webhook_deliveries id of the delivery (an admin resend: that id and a suffix). */
  delivery_id: string;
  attempt: number;
  endpoint: string;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  attempted_at_ms: number;
}

export const WebhookAttempt = new EntitySchema<WebhookAttemptRow>({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  columns: {
    seq: seq(),
    event_id: varchar(32),
    delivery_id: varchar(64),
    attempt: { type: 'int' },
    endpoint: varchar(2048),
    status_code: { type: 'int', nullable: true },
    error: varchar(255, true),
    latency_ms: { type: 'int' },
    attempted_at_ms: bigint(),
  },
});

export const ENTITIES = [Merchant, WebhookSecret, WebhookEndpoint, ApiKey, IdempotencyRecord, CardVault, Payment, Refund, Payout, Event, WebhookDelivery, WebhookAttempt];
