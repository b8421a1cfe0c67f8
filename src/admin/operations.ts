// Operator operations on merchants and keys (CONTRACT 5). The CLI in cli.ts is a thin shell on these.
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ApiKey, Merchant, WebhookSecret, type MerchantRow } from '../db/entities';
import { generateApiKey, hashApiKey, keyHint, type KeyMode } from '../domain/api-keys';
import { newId } from '../domain/ids';
import { normalizeCurrency, isIsoCurrency } from '../domain/money';
import { DEFAULT_VERSION, isKnownVersion } from '../api/versions';
import type { SecretBox } from '../vault/crypto';

export const DEFAULT_CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'SEK', 'KWD'];

export class AdminError extends Error {}

const now = () => Math.floor(Date.now() / 1000);

export function parseCurrencies(list: string): string {
  const codes = list.split(',').map((c) => normalizeCurrency(c));
  if (!codes.length || codes.some((c) => !c || !isIsoCurrency(c))) throw new AdminError(`--currencies must be a comma-separated list of ISO 4217 codes, got "${list}"`);
  return [...new Set(codes as string[])].join(',');
}

function checkVersion(version: string): string {
  if (!isKnownVersion(version)) throw new AdminError(`unknown version "${version}" (known: 2024-06-01, 2025-09-01)`);
  return version;
}

function checkUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('scheme');
    return url;
  } catch {
    throw new AdminError(`--webhook-url must be an absolute http(s) URL, got "${url}"`);
  }
}

export interface CreateMerchantInput {
  name: string;
  currencies?: string;
  defaultVersion?: string;
  webhookUrl?: string;
}

export class AdminOperations {
  constructor(private readonly dataSource: DataSource, private readonly box: SecretBox) {}

  async createMerchant(input: CreateMerchantInput) {
    if (!input.name.trim()) throw new AdminError('--name is required');
    const id = newId('merchant');
    const ts = now();
    const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
    await this.dataSource.transaction(async (manager) => {
      await manager.getRepository(Merchant).insert({
        id,
        name: input.name,
        default_version: checkVersion(input.defaultVersion ?? DEFAULT_VERSION),
        currencies: input.currencies ? parseCurrencies(input.currencies) : DEFAULT_CURRENCIES.join(','),
        payments_enabled: true,
        payouts_enabled: true,
        provisioned: true,
        webhook_url: input.webhookUrl ? checkUrl(input.webhookUrl) : null,
        created_at: ts,
        updated_at: ts,
      });
      await manager.getRepository(WebhookSecret).insert({
        id: newId('apiKey').replace('key_', 'whs_'), merchant_id: id, secret_ciphertext: this.box.seal(webhookSecret, id), created_at: ts, expires_at: null,
      });
    });
    const testKey = await this.createKey({ merchantId: id, mode: 'test' });
    const liveKey = await this.createKey({ merchantId: id, mode: 'live' });
    return { merchant_id: id, test_key: testKey.key, live_key: liveKey.key, webhook_secret: webhookSecret };
  }

  async updateMerchant(id: string, changes: { payments?: boolean; payouts?: boolean; provisioned?: boolean; currencies?: string; defaultVersion?: string; webhookUrl?: string }) {
    const repo = this.dataSource.getRepository(Merchant);
    const merchant = await repo.findOneBy({ id });
    if (!merchant) throw new AdminError(`no merchant ${id}`);
    const patch: Partial<MerchantRow> = { updated_at: now() };
    if (changes.payments !== undefined) patch.payments_enabled = changes.payments;
    if (changes.payouts !== undefined) patch.payouts_enabled = changes.payouts;
    if (changes.provisioned !== undefined) patch.provisioned = changes.provisioned;
    if (changes.currencies !== undefined) patch.currencies = parseCurrencies(changes.currencies);
    if (changes.defaultVersion !== undefined) patch.default_version = checkVersion(changes.defaultVersion);
    if (changes.webhookUrl !== undefined) patch.webhook_url = changes.webhookUrl === '' ? null : checkUrl(changes.webhookUrl);
    await repo.update({ id }, patch);
    return this.showMerchant(id);
  }

  async showMerchant(id: string) {
    const merchant = await this.dataSource.getRepository(Merchant).findOneBy({ id });
    if (!merchant) throw new AdminError(`no merchant ${id}`);
    const keys = await this.dataSource.getRepository(ApiKey).find({ where: { merchant_id: id }, order: { created_at: 'ASC' } });
    return {
      merchant_id: merchant.id,
      name: merchant.name,
      default_version: merchant.default_version,
      currencies: merchant.currencies.split(','),
      payments: merchant.payments_enabled,
      payouts: merchant.payouts_enabled,
      provisioned: merchant.provisioned,
      webhook_url: merchant.webhook_url,
      keys: keys.map((k) => ({ hint: k.key_hint, mode: k.mode, refunds: k.can_refund, expires_at: k.expires_at, revoked_at: k.revoked_at })),
    };
  }

  async createKey(input: { merchantId: string; mode: KeyMode; refunds?: boolean; expiresAt?: number | null }) {
    const merchant = await this.dataSource.getRepository(Merchant).findOneBy({ id: input.merchantId });
    if (!merchant) throw new AdminError(`no merchant ${input.merchantId}`);
    const key = generateApiKey(input.mode);
    await this.dataSource.getRepository(ApiKey).insert({
      id: newId('apiKey'),
      merchant_id: input.merchantId,
      mode: input.mode,
      key_hash: hashApiKey(key),
      key_hint: keyHint(key),
      can_refund: input.refunds ?? true,
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
      created_at: now(),
    });
    return { key };
  }

  async revokeKey(key: string) {
    const result = await this.dataSource.getRepository(ApiKey).update({ key_hash: hashApiKey(key) }, { revoked_at: now() });
    if (!result.affected) throw new AdminError('no such key');
    return { revoked: keyHint(key) };
  }
}
