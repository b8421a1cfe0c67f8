// The webhook relay (a delivery workflow per event was a third of a create's CPU: bench/NOTES.md): an
// event's first attempt is made without a workflow, under a lease that a sweeper takes over when
// the recording worker dies. Existing events already have their delivery workflows: no lease.
import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class WebhookRelay1764900000000 implements MigrationInterface {
  name = 'WebhookRelay1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('events', new TableColumn({ name: 'relay_lease_until_ms', type: 'bigint', isNullable: true }));
    await queryRunner.createIndex('events', new TableIndex({ name: 'idx_events_relay_lease', columnNames: ['relay_lease_until_ms'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('events', 'idx_events_relay_lease');
    await queryRunner.dropColumn('events', 'relay_lease_until_ms');
  }
}
