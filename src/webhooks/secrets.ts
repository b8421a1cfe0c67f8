// Webhook signing secrets of a merchant, sealed at rest. Rotation adds a secret and lets the old
// one keep signing until its grace period ends.
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { WebhookSecret } from '../db/entities';
import { randomBase62 } from '../domain/ids';
import type { SecretBox } from '../vault/crypto';

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export class WebhookSecrets {
  constructor(private readonly dataSource: DataSource, private readonly box: SecretBox) {}

  async add(merchantId: string, secret = generateWebhookSecret()): Promise<string> {
    await this.dataSource.getRepository(WebhookSecret).insert({
      id: `whs_${randomBase62(24)}`,
      merchant_id: merchantId,
      secret_ciphertext: this.box.seal(secret, merchantId),
      created_at: Math.floor(Date.now() / 1000),
      expires_at: null,
    });
    return secret;
  }

  /** Newest first: the secrets that sign now. */
  async active(merchantId: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<string[]> {
    const rows = await this.dataSource.getRepository(WebhookSecret).find({ where: { merchant_id: merchantId }, order: { created_at: 'DESC' } });
    return rows.filter((r) => r.expires_at === null || r.expires_at > nowSeconds).map((r) => this.box.open(r.secret_ciphertext, merchantId));
  }

  /** A new secret; the current ones keep signing for `graceSeconds`. */
  async rotate(merchantId: string, graceSeconds: number): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    await this.dataSource.getRepository(WebhookSecret).createQueryBuilder().update()
      .set({ expires_at: now + graceSeconds })
      .where('merchant_id = :merchantId AND (expires_at IS NULL OR expires_at > :now)', { merchantId, now })
      .execute();
    return this.add(merchantId);
  }
}
