// A Payment create's Idempotency-Key is scoped to its endpoint, whichever shape asks
// (docs/api-reference.md, "Idempotency"). Shape B's creates kept their claims under operations of
// their own, so a key retried in the other shape found nothing and created a second Payment. Their
// live claims move to the endpoint's operation (their fingerprints are unchanged); a claim whose
// key the other shape already holds stays where it is and expires.
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { isMysql } from './helpers/dialect';

const MOVES: Array<[from: string, to: string]> = [
  ['payments.create_b', 'payments.create'],
  ['payments.create_hosted_b', 'payments.create_hosted'],
];

export class IdempotencyScopePerEndpoint1765200000000 implements MigrationInterface {
  name = 'IdempotencyScopePerEndpoint1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Skips a row whose move would break uq_idempotency_scope: MySQL/MariaDB `UPDATE IGNORE`,
    // SQLite `UPDATE OR IGNORE`.
    const update = isMysql(queryRunner) ? 'UPDATE IGNORE' : 'UPDATE OR IGNORE';
    for (const [from, to] of MOVES) {
      await queryRunner.query(`${update} idempotency_records SET operation = ? WHERE operation = ?`, [to, from]);
    }
  }

  async down(): Promise<void> {
    // Nothing to undo: the earlier code reads claims of its own operations only, and the moved ones
    // expire.
  }
}
