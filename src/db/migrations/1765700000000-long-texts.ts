// Texts that may hold a Payment with all its refunds: an event's body (`payment.refunded` carries
// the Payment after each refund) and a stored answer (Shape B's refund answers with the Payment).
// On MySQL/MariaDB a TEXT holds 64 KB, which a Payment refunded about 140 times passes; MEDIUMTEXT
// holds 16 MB, far beyond the 2 MB a workflow's activity input may carry. SQLite's TEXT has no
// such limit: nothing to do there.
//
// Frozen: the columns and their collations are written out here (the byte-exact one is the
// server's binary NO PAD collation, which MariaDB and MySQL 8 name differently).
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { binaryNoPadCollation, isMysql } from './helpers/dialect';

const BINARY_NO_PAD = Symbol('binary NO PAD');
const COLUMNS = [
  { table: 'events', column: 'payload', collation: 'utf8mb4_unicode_ci', nullable: false },
  { table: 'events', column: 'payload_b', collation: BINARY_NO_PAD, nullable: true },
  { table: 'idempotency_records', column: 'response_body', collation: 'utf8mb4_unicode_ci', nullable: true },
] as const;

async function modify(queryRunner: QueryRunner, type: 'MEDIUMTEXT' | 'TEXT'): Promise<void> {
  const binary = await binaryNoPadCollation(queryRunner);
  for (const c of COLUMNS) {
    const collation = c.collation === BINARY_NO_PAD ? binary : c.collation;
    await queryRunner.query(`ALTER TABLE \`${c.table}\` MODIFY \`${c.column}\` ${type} CHARACTER SET utf8mb4 COLLATE ${collation} ${c.nullable ? 'NULL' : 'NOT NULL'}`);
  }
}

export class LongTexts1765700000000 implements MigrationInterface {
  name = 'LongTexts1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!isMysql(queryRunner)) return;
    await modify(queryRunner, 'MEDIUMTEXT');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (!isMysql(queryRunner)) return;
    await modify(queryRunner, 'TEXT');
  }
}
