// Identifiers, idempotency keys, tokens and hashes compare byte for byte on MySQL/MariaDB too.
// The tables were created with utf8mb4_unicode_ci, which folds case and accents and pads with
// spaces: `Idempotency-Key: order-abc` replayed the Payment of `ORDER-ABC`, and a case-swapped
// `pay_...` id or hosted page token found the object. Those columns move to a binary NO PAD
// collation (the server's own, from helpers/dialect.ts; `utf8mb4_bin` still pads,
// so `key` and `key ` would stay one key), and so do the defaults of every table and of the
// database, so that a column added later is byte-exact unless it asks otherwise. Human text
// (names, descriptions, messages) keeps its collation. SQLite already compares with BINARY.
//
// Frozen: the column list is written out here; the collation comes from the frozen dialect helper.
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { binaryNoPadCollation } from './helpers/dialect';

type Column = [name: string, length: number, nullable: boolean];

/** Every identifier, key, token and hash column as HEAD's schema defines it (VARCHAR, utf8mb4). */
const IDENTIFIERS: Record<string, Column[]> = {
  merchants: [['id', 32, false]],
  webhook_secrets: [['id', 32, false], ['merchant_id', 32, false]],
  api_keys: [['id', 32, false], ['merchant_id', 32, false], ['key_hash', 64, false]],
  idempotency_records: [['api_key_id', 32, false], ['operation', 32, false], ['idempotency_key', 255, false], ['fingerprint', 64, false], ['object_id', 40, false]],
  card_vault: [['token', 40, false], ['merchant_id', 32, false]],
  payments: [['id', 32, false], ['merchant_id', 32, false], ['hosted_token', 64, true], ['merchant_customer_id', 255, true]],
  refunds: [['id', 32, false], ['payment_id', 32, false], ['merchant_id', 32, false]],
  payouts: [['id', 32, false], ['merchant_id', 32, false]],
  events: [['id', 32, false], ['merchant_id', 32, false], ['object_id', 40, false]],
  webhook_attempts: [['event_id', 32, false], ['delivery_id', 64, false]],
  payout_scopes: [['merchant_id', 32, false]],
};

/** Tables without such a column: only their default changes. */
const OTHER_TABLES = ['payout_counts', 'payout_search_suffixes', 'payout_search_grams', 'payout_created_hours'];

/** The collation every table had before. */
const FOLDING = 'utf8mb4_unicode_ci';

async function collate(queryRunner: QueryRunner, collation: string): Promise<void> {
  for (const [table, columns] of Object.entries(IDENTIFIERS)) {
    const modify = columns.map(([name, length, nullable]) => `MODIFY \`${name}\` VARCHAR(${length}) CHARACTER SET utf8mb4 COLLATE ${collation} ${nullable ? 'NULL' : 'NOT NULL'}`);
    await queryRunner.query(`ALTER TABLE \`${table}\` DEFAULT CHARACTER SET utf8mb4 COLLATE ${collation}, ${modify.join(', ')}`);
  }
  for (const table of OTHER_TABLES) await queryRunner.query(`ALTER TABLE \`${table}\` DEFAULT CHARACTER SET utf8mb4 COLLATE ${collation}`);
  await queryRunner.query(`ALTER DATABASE DEFAULT CHARACTER SET utf8mb4 COLLATE ${collation}`);
}

const onMysql = (queryRunner: QueryRunner) => ['mysql', 'mariadb'].includes(queryRunner.connection.options.type);

export class ByteExactIdentifiers1765300000000 implements MigrationInterface {
  name = 'ByteExactIdentifiers1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!onMysql(queryRunner)) return;
    await collate(queryRunner, await binaryNoPadCollation(queryRunner));
  }

  /** Fails on a unique index if two keys now differ only in case, accents or trailing spaces. */
  async down(queryRunner: QueryRunner): Promise<void> {
    if (!onMysql(queryRunner)) return;
    await collate(queryRunner, FOLDING);
  }
}
