// Bearer API key authentication (spec 5, CONTRACT 5). Every failure is the same 401.
import type { Next } from 'koa';
import { ApiKey, Merchant, type ApiKeyRow, type MerchantRow } from '../../db/entities';
import { hashApiKey, hashesEqual, parseApiKey } from '../../domain/api-keys';
import { ApiError } from '../../domain/errors';
import type { RateDecision } from '../../domain/rate-limit';
import type { AppContext, Deps } from '../context';

function refuseIfLimited(decision: RateDecision): void {
  if (!decision.allowed) {
    throw new ApiError('rate_limit_exceeded', { retryAfterSeconds: decision.retryAfterSeconds, message: 'Too many requests with this API key; retry after the Retry-After delay.' });
  }
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
    const match = /^Bearer ([^\s]+)$/.exec(header);
    const parsed = match ? parseApiKey(match[1]!) : null;
    if (!match || !parsed) throw new ApiError('invalid_api_key');
    const hash = hashApiKey(match[1]!);
    const known = rateLimiter.knows(hash);
    if (known) refuseIfLimited(rateLimiter.take(hash, Date.now()));
    // The key and its merchant in one statement: every request pays this round trip.
    const key: (ApiKeyRow & { merchant?: MerchantRow }) | null = await dataSource.getRepository(ApiKey).createQueryBuilder('k')
      .innerJoinAndMapOne('k.merchant', Merchant.options.name, 'm', 'm.id = k.merchant_id')
      .where('k.key_hash = :hash', { hash })
      .getOne();
    const now = Math.floor(Date.now() / 1000);
    if (!key || !hashesEqual(key.key_hash, hash) || key.mode !== parsed.mode || key.revoked_at !== null
      || (key.expires_at !== null && key.expires_at <= now)) {
      throw new ApiError('invalid_api_key');
    }
    const merchant = key.merchant;
    if (!merchant) throw new ApiError('invalid_api_key');
    ctx.state.auth = { apiKeyId: key.id, merchant, mode: key.mode, livemode: key.mode === 'live', canRefund: key.can_refund };
    if (!known) refuseIfLimited(rateLimiter.take(hash, Date.now()));
    await next();
  };
}
