// The Events API (GET /v1/events, docs/events.md): pages newest first within a merchant and mode,
// filtered by object or by type, and the retention purge by creation time.
// - (merchant, mode, seq, created_at): the unfiltered page walks `seq` in one range; created_at is
//   carried so a creation-time filter is checked without reading rows.
// - (merchant, mode, type, seq, created_at): one range per type, already in `seq` order (a
//   wildcard is read as one such range per type it covers, merged).
// - (merchant, mode, object_id, seq) replaces (object_id): an object's few events, scoped.
// - (created_at): the purge finds what is past retention without a scan.
// (merchant, seq) stays for the admin command, which lists a merchant's events of both modes.
//
// Frozen: the column lists are written out here and nothing is imported that may change later.
import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

const ADDED: Array<{ name: string; columns: string[] }> = [
  { name: 'idx_events_scope', columns: ['merchant_id', 'livemode', 'seq', 'created_at'] },
  { name: 'idx_events_scope_type', columns: ['merchant_id', 'livemode', 'type', 'seq', 'created_at'] },
  { name: 'idx_events_scope_object', columns: ['merchant_id', 'livemode', 'object_id', 'seq'] },
  { name: 'idx_events_created', columns: ['created_at'] },
];

export class EventsApi1765600000000 implements MigrationInterface {
  name = 'EventsApi1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const index of ADDED) await queryRunner.createIndex('events', new TableIndex({ name: index.name, columnNames: index.columns }));
    await queryRunner.dropIndex('events', 'idx_events_object');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('events', new TableIndex({ name: 'idx_events_object', columnNames: ['object_id'] }));
    for (const index of [...ADDED].reverse()) await queryRunner.dropIndex('events', index.name);
  }
}
