// Schema written with TypeORM's portable Table API so the same migration runs on MySQL/MariaDB
// and on the embedded SQLite default. Later changes go in new migration files.
import { Table, TableIndex, TableUnique, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { isMysql } from './helpers/dialect';

const col = {
  // SQLite only auto-increments an INTEGER PRIMARY KEY (which is 64-bit there).
  seq: (qr: QueryRunner): TableColumnOptions => ({ name: 'seq', type: isMysql(qr) ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' }),
  id: (name = 'id', length = 32): TableColumnOptions => ({ name, type: 'varchar', length: String(length), isPrimary: true }),
  varchar: (name: string, length: number, nullable = false): TableColumnOptions => ({ name, type: 'varchar', length: String(length), isNullable: nullable }),
  bigint: (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable }),
  int: (name: string, nullable = false): TableColumnOptions => ({ name, type: 'int', isNullable: nullable }),
  bool: (name: string): TableColumnOptions => ({ name, type: 'boolean' }),
  text: (name: string, nullable = true): TableColumnOptions => ({ name, type: 'text', isNullable: nullable }),
};

function table(name: string, columns: TableColumnOptions[], uniques: Record<string, string[]> = {}, indices: Record<string, string[]> = {}): Table {
  return new Table({
    name,
    columns,
    uniques: Object.entries(uniques).map(([n, c]) => new TableUnique({ name: n, columnNames: c })),
    indices: Object.entries(indices).map(([n, c]) => new TableIndex({ name: n, columnNames: c })),
  });
}

export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(table('merchants', [
      col.id(), col.varchar('name', 255), col.varchar('default_version', 10), col.varchar('currencies', 512),
      col.bool('payments_enabled'), col.bool('payouts_enabled'), col.bool('provisioned'),
      col.varchar('webhook_url', 2048, true), col.bigint('created_at'), col.bigint('updated_at'),
    ]));
    await queryRunner.createTable(table('webhook_secrets', [
      col.id(), col.varchar('merchant_id', 32), col.text('secret_ciphertext', false), col.bigint('created_at'), col.bigint('expires_at', true),
    ], {}, { idx_webhook_secrets_merchant: ['merchant_id'] }));
    await queryRunner.createTable(table('api_keys', [
      col.id(), col.varchar('merchant_id', 32), col.varchar('mode', 4), col.varchar('key_hash', 64), col.varchar('key_hint', 32),
      col.bool('can_refund'), col.bigint('expires_at', true), col.bigint('revoked_at', true), col.bigint('created_at'),
    ], { uq_api_keys_hash: ['key_hash'] }, { idx_api_keys_merchant: ['merchant_id'] }));
    await queryRunner.createTable(table('idempotency_records', [
      col.seq(queryRunner), col.varchar('api_key_id', 32), col.varchar('operation', 32), col.varchar('idempotency_key', 255),
      col.varchar('fingerprint', 64), col.varchar('object_id', 40), col.varchar('state', 16), col.int('response_status', true),
      col.text('response_body'), col.bigint('locked_until_ms'), col.bigint('created_at'), col.bigint('expires_at'),
    ], { uq_idempotency_scope: ['api_key_id', 'operation', 'idempotency_key'] }, { idx_idempotency_expiry: ['expires_at'] }));
    await queryRunner.createTable(table('card_vault', [
      col.id('token', 40), col.varchar('merchant_id', 32), col.text('pan_ciphertext', false), col.text('cvc_ciphertext'), col.bigint('created_at'),
    ]));
    await queryRunner.createTable(table('payments', [
      col.seq(queryRunner), col.varchar('id', 32), col.varchar('merchant_id', 32), col.bool('livemode'), col.bigint('amount'),
      col.varchar('currency', 3), col.varchar('status', 20), col.varchar('integration_type', 24), col.bigint('merchant_reference', true),
      col.text('description'), col.varchar('card_brand', 16, true), col.varchar('card_last4', 4, true), col.int('card_exp_month', true),
      col.int('card_exp_year', true), col.varchar('card_holder_name', 255, true), col.varchar('card_country', 2, true),
      col.text('billing_details'), col.varchar('failure_code', 40, true), col.varchar('failure_message', 255, true),
      col.bigint('amount_refunded'), col.bigint('amount_refundable'), col.varchar('next_action_reason', 32, true),
      col.varchar('next_action_url', 2048, true), col.bigint('requires_action_at', true), col.bigint('processing_at', true),
      col.bigint('succeeded_at', true), col.bigint('failed_at', true), col.bigint('expired_at', true), col.bigint('refunded_at', true),
      col.varchar('return_url', 2048, true), col.varchar('customer_ip_address', 45, true), col.varchar('merchant_customer_id', 255, true),
      col.text('metadata'), col.text('customer'), col.varchar('callback_url', 2048, true), col.varchar('hosted_token', 64, true),
      col.bigint('created_at'), col.bigint('updated_at'), col.int('version'),
    ], { uq_payments_id: ['id'], uq_payments_hosted_token: ['hosted_token'] }, {
      idx_payments_scope: ['merchant_id', 'livemode', 'seq'],
      idx_payments_scope_status: ['merchant_id', 'livemode', 'status', 'seq'],
    }));
    await queryRunner.createTable(table('refunds', [
      col.seq(queryRunner), col.varchar('id', 32), col.varchar('payment_id', 32), col.varchar('merchant_id', 32), col.bool('livemode'),
      col.bigint('amount'), col.varchar('currency', 3), col.bigint('merchant_reference', true), col.varchar('reason', 50),
      col.varchar('refund_type', 8), col.varchar('status', 20), col.varchar('failure_code', 40, true), col.varchar('failure_message', 255, true),
      col.bigint('created_at'), col.bigint('updated_at'), col.bigint('completed_at', true), col.int('version'),
    ], { uq_refunds_id: ['id'] }, { idx_refunds_payment: ['payment_id', 'seq'] }));
    await queryRunner.createTable(table('payouts', [
      col.seq(queryRunner), col.varchar('id', 32), col.varchar('merchant_id', 32), col.bool('livemode'), col.bigint('amount'),
      col.varchar('currency', 3), col.varchar('status', 20), col.bigint('merchant_reference', true),
      col.varchar('recipient_first_name', 255), col.varchar('recipient_last_name', 255), col.varchar('recipient_country', 2),
      col.varchar('destination_brand', 16), col.varchar('destination_last4', 4), col.varchar('destination_country', 2, true),
      col.varchar('failure_code', 40, true), col.varchar('failure_message', 255, true), col.int('poll_attempts'),
      col.bigint('last_polled_at', true), col.bigint('created_at'), col.bigint('updated_at'), col.bigint('completed_at', true), col.int('version'),
    ], { uq_payouts_id: ['id'] }, {
      idx_payouts_scope: ['merchant_id', 'livemode', 'seq'],
      idx_payouts_scope_last4: ['merchant_id', 'livemode', 'destination_last4'],
      idx_payouts_scope_amount: ['merchant_id', 'livemode', 'currency', 'amount'],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['payouts', 'refunds', 'payments', 'card_vault', 'idempotency_records', 'api_keys', 'webhook_secrets', 'merchants']) {
      await queryRunner.dropTable(name);
    }
  }
}
