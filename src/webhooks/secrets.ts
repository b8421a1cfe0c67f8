// Webhook signing secrets, sealed at rest (with the merchant id as associated data). Each webhook
// endpoint has its own; the merchant has one more of its own, which signs Shape B `callback_url`
// deliveries and which the operator-managed endpoints (the admin command's `--webhook-url`) share.
// Rotation adds a secret and lets the old ones keep signing until their grace period ends.
import { randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { WebhookEndpoint, WebhookSecret } from '../db/entities';
import { newId } from '../domain/ids';
import type { SecretBox } from '../vault/crypto';

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Whose secrets: an endpoint's, or (endpointId null) the merchant's own. */
export interface SecretOwner {
  merchantId: string;
  endpointId: string | null;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class WebhookSecrets {
  constructor(private readonly dataSource: DataSource | EntityManager, private readonly box: SecretBox) {}

  private get repo() {
    return this.dataSource.getRepository(WebhookSecret);
  }

  async add(owner: SecretOwner, secret = generateWebhookSecret(), id = newId('webhookSecret')): Promise<string> {
    await this.repo.insert({
      id,
      merchant_id: owner.merchantId,
      endpoint_id: owner.endpointId,
      secret_ciphertext: this.box.seal(secret, owner.merchantId),
      created_at: nowSeconds(),
      expires_at: null,
    });
    return secret;
  }

  /** The secrets that sign for `owner` now, newest first. */
  async signing(owner: SecretOwner, now = nowSeconds()): Promise<string[]> {
    const query = this.repo.createQueryBuilder('s')
      .select('s.secret_ciphertext', 'secret_ciphertext')
      .where('s.merchant_id = :merchantId AND (s.expires_at IS NULL OR s.expires_at > :now)', { merchantId: owner.merchantId, now });
    if (owner.endpointId === null) query.andWhere('s.endpoint_id IS NULL');
    else query.andWhere('s.endpoint_id = :endpointId', { endpointId: owner.endpointId });
    const rows = await query.orderBy('s.created_at', 'DESC').addOrderBy('s.expires_at', 'ASC').getRawMany<{ secret_ciphertext: string }>();
    return this.openAll(owner.merchantId, rows.map((r) => r.secret_ciphertext));
  }

  /** Whether `secret` is one of `owner`'s current secrets: not rotated away (a grace period still running counts as rotated away). */
  async isCurrent(owner: SecretOwner, secret: string): Promise<boolean> {
    const rows = await this.repo.createQueryBuilder('s').select('s.secret_ciphertext', 'secret_ciphertext')
      .where('s.merchant_id = :merchantId AND s.endpoint_id = :endpointId AND s.expires_at IS NULL', owner)
      .getRawMany<{ secret_ciphertext: string }>();
    return this.openAll(owner.merchantId, rows.map((r) => r.secret_ciphertext)).includes(secret);
  }

  /** The secret stored under `id` for `owner`, or null. */
  async byId(owner: SecretOwner, id: string): Promise<string | null> {
    const row = await this.repo.findOneBy({ id, merchant_id: owner.merchantId });
    return row && row.endpoint_id === owner.endpointId ? this.box.open(row.secret_ciphertext, owner.merchantId) : null;
  }

  /** Opens sealed secrets of a merchant (read in a join by the caller). */
  openAll(merchantId: string, ciphertexts: readonly string[]): string[] {
    return ciphertexts.map((c) => this.box.open(c, merchantId));
  }

  /** Copies the secrets that sign for `from` now to `to`, so that both verify with the same ones. */
  async copy(from: SecretOwner, to: SecretOwner, now = nowSeconds()): Promise<void> {
    const query = this.repo.createQueryBuilder('s')
      .where('s.merchant_id = :merchantId AND (s.expires_at IS NULL OR s.expires_at > :now)', { merchantId: from.merchantId, now });
    if (from.endpointId === null) query.andWhere('s.endpoint_id IS NULL');
    else query.andWhere('s.endpoint_id = :endpointId', { endpointId: from.endpointId });
    for (const row of await query.getMany()) {
      await this.repo.insert({ ...row, id: newId('webhookSecret'), merchant_id: to.merchantId, endpoint_id: to.endpointId });
    }
  }

  /**
   * A new secret for every owner in `owners` (one value for all); their current secrets keep
   * signing for `graceSeconds`.
   */
  async rotate(owners: readonly SecretOwner[], graceSeconds: number, secret = generateWebhookSecret(), secretId?: string): Promise<string> {
    if (secretId !== undefined && owners.length !== 1) throw new Error('a secret id names the secret of one owner');
    const now = nowSeconds();
    for (const owner of owners) {
      const update = this.repo.createQueryBuilder().update()
        .set({ expires_at: now + graceSeconds })
        .where('merchant_id = :merchantId AND (expires_at IS NULL OR expires_at > :expiresAt)', { merchantId: owner.merchantId, expiresAt: now + graceSeconds });
      if (owner.endpointId === null) update.andWhere('endpoint_id IS NULL');
      else update.andWhere('endpoint_id = :endpointId', { endpointId: owner.endpointId });
      await update.execute();
      await this.add(owner, secret, secretId);
    }
    return secret;
  }

  /** The owners the admin command's rotation covers: the merchant's own secret and its operator-managed endpoints. */
  async operatorOwners(merchantId: string): Promise<SecretOwner[]> {
    const endpoints = await this.dataSource.getRepository(WebhookEndpoint).find({ select: { id: true }, where: { merchant_id: merchantId, operator_managed: true } });
    return [{ merchantId, endpointId: null }, ...endpoints.map((e) => ({ merchantId, endpointId: e.id }))];
  }
}
