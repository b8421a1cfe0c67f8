// Webhook signing secrets of a merchant, sealed at rest. Rotation adds a secret and lets the old
// one keep signing until its grace period ends.
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Merchant, WebhookSecret } from '../db/entities';
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

  /**
   * What an attempt needs of the merchant, in one statement: its webhook URL and the secrets that
   * sign now, newest first. Null when there is no such merchant.
   */
  async signingTarget(merchantId: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<{ webhookUrl: string | null; secrets: string[] } | null> {
    const rows = await this.dataSource.getRepository(Merchant).createQueryBuilder('m')
      .leftJoin(WebhookSecret.options.name, 's', 's.merchant_id = m.id AND (s.expires_at IS NULL OR s.expires_at > :now)', { now: nowSeconds })
      .select('m.webhook_url', 'webhook_url')
      .addSelect('s.secret_ciphertext', 'secret_ciphertext')
      .where('m.id = :merchantId', { merchantId })
      .orderBy('s.created_at', 'DESC')
      .getRawMany<{ webhook_url: string | null; secret_ciphertext: string | null }>();
    if (!rows.length) return null;
    return {
      webhookUrl: rows[0]!.webhook_url,
      secrets: rows.flatMap((r) => (r.secret_ciphertext ? [this.box.open(r.secret_ciphertext, merchantId)] : [])),
    };
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
