// The migration to webhook endpoints: a merchant's operator-set `webhook_url` becomes one endpoint
// per mode (enabled_events ["*"], its default version), signed with the merchant's current secrets,
// so the secret the operator handed out still verifies; merchants without a URL get none. On
// MariaDB (a database of its own, migrated from empty) and on the embedded SQLite default.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/db/data-source';
import { ensureDatabase } from '../../src/db/ensure-database';
import { migrate } from '../../src/db/migrate';
import { WebhookEndpoints1765500000000 } from '../../src/db/migrations/1765500000000-webhook-endpoints';
import { randomBase62 } from '../../src/domain/ids';
import { SecretBox } from '../../src/vault/crypto';
import { WebhookSecrets } from '../../src/webhooks/secrets';
import { TEST_ENV } from '../helpers/test-env';

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-endpoints-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', `${TEST_ENV.databaseUrl}_mig27`], ['SQLite', `sqlite:${sqliteFile}`]];
const box = new SecretBox('11'.repeat(32));

describe.each(ENGINES)('%s', (_engine, url) => {
  let dataSource: DataSource;

  beforeAll(async () => {
    await ensureDatabase(url);
    await migrate(url);
    dataSource = await openDataSource(url);
    // Back to the schema before the migration, to write what a merchant had then.
    const runner = dataSource.createQueryRunner();
    try {
      await new WebhookEndpoints1765500000000().down(runner);
    } finally {
      await runner.release();
    }
  });
  afterAll(async () => { await dataSource.destroy(); });

  it('turns each webhook_url into one endpoint per mode, signed with the merchant\'s secrets', async () => {
    const withUrl = `mer_${randomBase62(24)}`;
    const without = `mer_${randomBase62(24)}`;
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    for (const [id, webhookUrl, version] of [[withUrl, 'https://shop.example/hooks', '2024-06-01'], [without, null, '2025-09-01']] as const) {
      await dataSource.query(
        'INSERT INTO merchants (id, name, default_version, currencies, payments_enabled, payouts_enabled, provisioned, webhook_url, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 1, 1, ?, 1, 1)',
        [id, 'Shop', version, 'USD', webhookUrl],
      );
      await dataSource.query('INSERT INTO webhook_secrets (id, merchant_id, secret_ciphertext, created_at, expires_at) VALUES (?, ?, ?, 1, NULL)', [`whs_${randomBase62(24)}`, id, box.seal(secret, id)]);
    }
    const runner = dataSource.createQueryRunner();
    try {
      await new WebhookEndpoints1765500000000().up(runner);
    } finally {
      await runner.release();
    }
    const endpoints = (await dataSource.query('SELECT id, merchant_id, livemode, url, enabled_events, api_version, status, operator_managed FROM webhook_endpoints WHERE merchant_id IN (?, ?) ORDER BY livemode', [withUrl, without])) as Array<Record<string, unknown>>;
    expect(endpoints.map((e) => ({ ...e, id: undefined, livemode: Boolean(Number(e.livemode)), operator_managed: Boolean(Number(e.operator_managed)) }))).toEqual([false, true].map((livemode) => ({
      id: undefined, merchant_id: withUrl, livemode, url: 'https://shop.example/hooks', enabled_events: '["*"]', api_version: '2024-06-01', status: 'enabled', operator_managed: true,
    })));
    const secrets = new WebhookSecrets(dataSource, box);
    for (const endpoint of endpoints) {
      const signing = await secrets.signing({ merchantId: withUrl, endpointId: endpoint.id as string });
      expect(signing).toEqual([secret]);
      const body = '{"id":"evt_1"}';
      const signature = new Webhook(signing[0]!).sign('evt_1', new Date(), body);
      expect(new Webhook(secret).verify(body, { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': signature })).toEqual({ id: 'evt_1' });
    }
    // The merchant's own secret stays: it signs Shape B callbacks.
    expect(await secrets.signing({ merchantId: withUrl, endpointId: null })).toEqual([secret]);
  });
});
