// Who an API key is: the key and its merchant, read in one statement on every authenticated request
// (a hot read: src/db/entity-columns.ts). The API's middleware parses the header and applies the
// rate limit; this decides whether the key may be used.
import type { DataSource } from 'typeorm';
import { ApiKey, Merchant, type ApiKeyRow, type MerchantRow } from '../db/entities';
import { entityColumns } from '../db/entity-columns';
import { hashesEqual, type KeyMode } from '../domain/api-keys';
import type { AuthContext } from './context';

async function findKeyAndMerchant(dataSource: DataSource, hash: string): Promise<{ key: ApiKeyRow; merchant: MerchantRow } | null> {
  const k = entityColumns(dataSource, ApiKey, 'k');
  const m = entityColumns(dataSource, Merchant, 'm');
  const rows = (await dataSource.query(`SELECT ${k.select}, ${m.select} FROM ${k.table} k INNER JOIN ${m.table} m ON m.id = k.merchant_id WHERE k.key_hash = ?`, [hash])) as Array<Record<string, unknown>>;
  const key = rows.length ? k.hydrate(rows[0]!) : null;
  const merchant = rows.length ? m.hydrate(rows[0]!) : null;
  return key && merchant ? { key, merchant } : null;
}

/**
 * The caller behind the key with this hash, or null when no key may be used: unknown, of the
 * other mode than the key's text says, revoked, or expired at `nowSeconds`.
 */
export async function authenticateKey(dataSource: DataSource, hash: string, mode: KeyMode, nowSeconds: number): Promise<AuthContext | null> {
  const found = await findKeyAndMerchant(dataSource, hash);
  if (!found || !hashesEqual(found.key.key_hash, hash) || found.key.mode !== mode || found.key.revoked_at !== null
    || (found.key.expires_at !== null && found.key.expires_at <= nowSeconds)) {
    return null;
  }
  const { key, merchant } = found;
  return { apiKeyId: key.id, merchant, mode: key.mode, livemode: key.mode === 'live', restricted: !key.can_refund };
}
