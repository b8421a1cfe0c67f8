// Vault rows by age: each worker forgets the CVCs older than any authorization could need (a card
// whose process died before its workflow had it), one index range scan a minute.
import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class CardVaultCreated1765100000000 implements MigrationInterface {
  name = 'CardVaultCreated1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('card_vault', new TableIndex({ name: 'idx_card_vault_created', columnNames: ['created_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('card_vault', 'idx_card_vault_created');
  }
}
