// Shape B (docs/shape-b.md): the Service-Version a Payment was created with (the browser return adds
// `status` for Shape B), its hosted page URL (Shape B `redirect_url`, which workers cannot rebuild),
// and an endpoint per event so a Shape B `callback_url` rides the one webhook delivery path.
import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ShapeB1764100000000 implements MigrationInterface {
  name = 'ShapeB1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('payments', [
      new TableColumn({ name: 'hosted_page_url', type: 'varchar', length: '2048', isNullable: true }),
      new TableColumn({ name: 'api_version', type: 'varchar', length: '10', isNullable: true }),
    ]);
    await queryRunner.addColumn('events', new TableColumn({ name: 'endpoint', type: 'varchar', length: '2048', isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('events', 'endpoint');
    await queryRunner.dropColumn('payments', 'api_version');
    await queryRunner.dropColumn('payments', 'hosted_page_url');
  }
}
