// Webhook endpoints: a merchant has several per mode, each with its own secret,
// event filter, status and api_version, and each event gets one delivery per matching endpoint,
// retried on its own. A merchant's single operator-set `webhook_url` becomes one endpoint per
// mode (it received both modes' events), `enabled_events` ["*"], its default version, its current
// secrets copied to it (so the secret the operator handed out still verifies); the admin command's
// `--webhook-url` manages those endpoints (`operator_managed`) from now on. The merchant's own
// secrets stay: they sign Shape B `callback_url` deliveries.
//
// Frozen: the tables are written out here and nothing is imported that may change later.
import { randomBytes } from 'node:crypto';
import { Table, TableColumn, TableIndex, TableUnique, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './helpers/dialect';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The id generator's format (a prefix and 24 base62 characters), written out because migrations are frozen. */
function newId(prefix: string): string {
  let out = '';
  while (out.length < 24) {
    for (const byte of randomBytes(48)) if (byte < 248 && out.length < 24) out += ALPHABET[byte % 62];
  }
  return prefix + out;
}

export class WebhookEndpoints1765500000000 implements MigrationInterface {
  name = 'WebhookEndpoints1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const seq = { name: 'seq', type: isMysql(queryRunner) ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' as const };
    await queryRunner.createTable(new Table({
      name: 'webhook_endpoints',
      columns: [
        seq,
        { name: 'id', type: 'varchar', length: '32' },
        { name: 'merchant_id', type: 'varchar', length: '32' },
        { name: 'livemode', type: 'boolean' },
        { name: 'url', type: 'varchar', length: '2048' },
        { name: 'enabled_events', type: 'text' },
        { name: 'description', type: 'varchar', length: '500', isNullable: true },
        { name: 'api_version', type: 'varchar', length: '10' },
        { name: 'status', type: 'varchar', length: '10' },
        { name: 'operator_managed', type: 'boolean', default: false },
        { name: 'created_at', type: 'bigint' },
        { name: 'updated_at', type: 'bigint' },
        { name: 'deleted_at', type: 'bigint', isNullable: true },
      ],
      uniques: [new TableUnique({ name: 'uq_webhook_endpoints_id', columnNames: ['id'] })],
      indices: [new TableIndex({ name: 'idx_webhook_endpoints_scope', columnNames: ['merchant_id', 'livemode', 'seq'] })],
    }));
    await queryRunner.createTable(new Table({
      name: 'webhook_deliveries',
      columns: [
        seq,
        { name: 'id', type: 'varchar', length: '32' },
        { name: 'event_id', type: 'varchar', length: '32' },
        { name: 'endpoint_id', type: 'varchar', length: '32', isNullable: true },
        { name: 'merchant_id', type: 'varchar', length: '32' },
        { name: 'livemode', type: 'boolean' },
        { name: 'url', type: 'varchar', length: '2048' },
        { name: 'status', type: 'varchar', length: '10' },
        { name: 'attempts', type: 'int' },
        { name: 'next_attempt_at', type: 'bigint', isNullable: true },
        { name: 'created_at', type: 'bigint' },
        { name: 'updated_at', type: 'bigint' },
      ],
      uniques: [
        new TableUnique({ name: 'uq_webhook_deliveries_id', columnNames: ['id'] }),
        new TableUnique({ name: 'uq_webhook_deliveries_event_endpoint', columnNames: ['event_id', 'endpoint_id'] }),
      ],
      indices: [new TableIndex({ name: 'idx_webhook_deliveries_event', columnNames: ['event_id'] })],
    }));
    await queryRunner.addColumn('webhook_secrets', new TableColumn({ name: 'endpoint_id', type: 'varchar', length: '32', isNullable: true }));
    await queryRunner.createIndex('webhook_secrets', new TableIndex({ name: 'idx_webhook_secrets_endpoint', columnNames: ['endpoint_id'] }));
    // The Shape B body of a payment event, for endpoints on 2024-06-01.
    await queryRunner.addColumn('events', new TableColumn({ name: 'payload_b', type: 'text', isNullable: true }));

    const nowMs = Date.now();
    const nowSeconds = Math.floor(nowMs / 1000);
    const merchants = (await queryRunner.query('SELECT id, default_version, webhook_url FROM merchants WHERE webhook_url IS NOT NULL')) as Array<{ id: string; default_version: string; webhook_url: string }>;
    for (const merchant of merchants) {
      const secrets = (await queryRunner.query(
        'SELECT secret_ciphertext, created_at, expires_at FROM webhook_secrets WHERE merchant_id = ? AND endpoint_id IS NULL AND (expires_at IS NULL OR expires_at > ?)',
        [merchant.id, nowSeconds],
      )) as Array<{ secret_ciphertext: string; created_at: number; expires_at: number | null }>;
      for (const livemode of [false, true]) {
        const endpointId = newId('we_');
        await queryRunner.query(
          'INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, enabled_events, description, api_version, status, operator_managed, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, NULL)',
          [endpointId, merchant.id, livemode ? 1 : 0, merchant.webhook_url, '["*"]', merchant.default_version, 'enabled', 1, nowMs, nowMs],
        );
        // Sealed with the merchant id as associated data, so the ciphertext is valid for the endpoint too.
        for (const secret of secrets) {
          await queryRunner.query(
            'INSERT INTO webhook_secrets (id, merchant_id, endpoint_id, secret_ciphertext, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
            [newId('whs_'), merchant.id, endpointId, secret.secret_ciphertext, secret.created_at, secret.expires_at],
          );
        }
      }
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM webhook_secrets WHERE endpoint_id IS NOT NULL');
    await queryRunner.dropColumn('events', 'payload_b');
    await queryRunner.dropIndex('webhook_secrets', 'idx_webhook_secrets_endpoint');
    await queryRunner.dropColumn('webhook_secrets', 'endpoint_id');
    await queryRunner.dropTable('webhook_deliveries');
    await queryRunner.dropTable('webhook_endpoints');
  }
}
