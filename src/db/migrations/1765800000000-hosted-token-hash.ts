// Hosted page tokens are kept as their SHA-256, as API keys are (docs/hosted-page.md, "The token"):
// the page looks a Payment up by the hash of the token in its URL. A new column keeps the token
// sealed with VAULT_KEY so the merchant can be shown the URL again. The existing tokens (32 base62
// characters; a hash is 64 hex) are replaced by their hash, so every open hosted page keeps opening.
// A migration has no key to seal with: a row converted here keeps its page URLs as they were until
// its Payment's next projection writes it anew, sealed (read-models/payments.ts).
//
// Frozen: the column and the hash are written out here.
import { createHash } from 'node:crypto';
import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './helpers/dialect';

const PLAIN_TOKEN_LENGTH = 32;
const BATCH = 500;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class HostedTokenHash1765800000000 implements MigrationInterface {
  name = 'HostedTokenHash1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!(await queryRunner.hasColumn('payments', 'hosted_token_sealed'))) {
      await queryRunner.addColumn('payments', new TableColumn({ name: 'hosted_token_sealed', type: 'varchar', length: '128', isNullable: true }));
    }
    if (isMysql(queryRunner)) {
      // One statement: MariaDB's SHA2 gives the same lowercase hex as node's digest.
      await queryRunner.query(`UPDATE payments SET hosted_token = SHA2(hosted_token, 256) WHERE hosted_token IS NOT NULL AND CHAR_LENGTH(hosted_token) = ${PLAIN_TOKEN_LENGTH}`);
      return;
    }
    // SQLite has no SHA-256 of its own.
    for (;;) {
      const rows: Array<{ id: string; hosted_token: string }> = await queryRunner.query(
        `SELECT id, hosted_token FROM payments WHERE hosted_token IS NOT NULL AND LENGTH(hosted_token) = ${PLAIN_TOKEN_LENGTH} LIMIT ${BATCH}`,
      );
      for (const row of rows) {
        await queryRunner.query('UPDATE payments SET hosted_token = ? WHERE id = ? AND hosted_token = ?', [sha256(row.hosted_token), row.id, row.hosted_token]);
      }
      if (rows.length < BATCH) return;
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The hashes stay: a token cannot be had back from its hash, and the earlier code looking a hash
    // up finds nothing, as for a token it never issued. Pages opened before are lost to it.
    await queryRunner.dropColumn('payments', 'hosted_token_sealed');
  }
}
