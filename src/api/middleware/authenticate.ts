// Bearer API key authentication (spec 5, CONTRACT 5). Every failure is the same 401.
import type { Next } from 'koa';
import type { DataSource } from 'typeorm';
import { ApiKey, Merchant, type ApiKeyRow, type MerchantRow } from '../../db/entities';
import { entityColumns } from '../../db/entity-columns';
import { hashApiKey, hashesEqual, parseApiKey } from '../../domain/api-keys';
import { ApiError } from '../../domain/errors';
import type { RateDecision } from '../../domain/rate-limit';
import type { AppContext, Deps } from '../context';

function refuseIfLimited(decision: RateDecision): void {
  if (!decision.allowed) {
    throw new ApiError('rate_limit_exceeded', { retryAfterSeconds: decision.retryAfterSeconds, message: 'Too many requests with this API key; retry after the Retry-After delay.' });
  }
}

/** The key and its merchant in one statement: every request pays this round trip (a hot read: entity-columns.ts). */
async function findKeyAndMerchant(dataSource: DataSource, hash: string): Promise<{ key: ApiKeyRow; merchant: MerchantRow } | null> {
  const k = entityColumns(dataSource, ApiKey, 'k');
  const m = entityColumns(dataSource, Merchant, 'm');
  const rows = (await dataSource.query(`SELECT ${k.select}, ${m.select} FROM ${k.table} k INNER JOIN ${m.table} m ON m.id = k.merchant_id WHERE k.key_hash = ?`, [hash])) as Array<Record<string, unknown>>;
  const key = rows.length ? k.hydrate(rows[0]!) : null;
  const merchant = rows.length ? m.hydrate(rows[0]!) : null;
  return key && merchant ? { key, merchant } : null;
}

/**
 * Authenticates the key and applies its request rate limit (one bucket per key, by its hash, so
 * merchants never share). A key that authenticated before is limited before the database: a
 * refused request then costs a hash and no query, so one merchant's burst takes little from
 * another's. A key without a bucket is authenticated first, so an unknown key is always 401.
 */
export function authenticate(deps: Pick<Deps, 'dataSource' | 'rateLimiter'>) {
  const { dataSource, rateLimiter } = deps;
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const header = ctx.get('authorization');
    // The scheme name is case-insensitive (RFC 9110 11.1); the key itself is not.
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    const parsed = match ? parseApiKey(match[1]!) : null;
    if (!match || !parsed) throw new ApiError('invalid_api_key');
    const hash = hashApiKey(match[1]!);
    const known = rateLimiter.knows(hash);
    if (known) refuseIfLimited(rateLimiter.take(hash, Date.now()));
    const found = await findKeyAndMerchant(dataSource, hash);
    const now = Math.floor(Date.now() / 1000);
    if (!found || !hashesEqual(found.key.key_hash, hash) || found.key.mode !== parsed.mode || found.key.revoked_at !== null
      || (found.key.expires_at !== null && found.key.expires_at <= now)) {
      throw new ApiError('invalid_api_key');
    }
    const { key, merchant } = found;
    ctx.state.auth = { apiKeyId: key.id, merchant, mode: key.mode, livemode: key.mode === 'live', canRefund: key.can_refund };
    if (!known) refuseIfLimited(rateLimiter.take(hash, Date.now()));
    await next();
  };
}
