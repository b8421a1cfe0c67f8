// Bearer API key authentication (spec 5, CONTRACT 5). Every failure is the same 401.
import type { Next } from 'koa';
import { ApiKey, Merchant } from '../../db/entities';
import { hashApiKey, hashesEqual, parseApiKey } from '../../domain/api-keys';
import { ApiError } from '../../domain/errors';
import type { AppContext, Deps } from '../context';

/** Authenticates the key, then applies its request rate limit (per key, so merchants never share). */
export function authenticate(deps: Pick<Deps, 'dataSource' | 'rateLimiter'>) {
  const { dataSource, rateLimiter } = deps;
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const header = ctx.get('authorization');
    const match = /^Bearer ([^\s]+)$/.exec(header);
    const parsed = match ? parseApiKey(match[1]!) : null;
    if (!match || !parsed) throw new ApiError('invalid_api_key');
    const hash = hashApiKey(match[1]!);
    const key = await dataSource.getRepository(ApiKey).findOneBy({ key_hash: hash });
    const now = Math.floor(Date.now() / 1000);
    if (!key || !hashesEqual(key.key_hash, hash) || key.mode !== parsed.mode || key.revoked_at !== null
      || (key.expires_at !== null && key.expires_at <= now)) {
      throw new ApiError('invalid_api_key');
    }
    const merchant = await dataSource.getRepository(Merchant).findOneBy({ id: key.merchant_id });
    if (!merchant) throw new ApiError('invalid_api_key');
    ctx.state.auth = { apiKeyId: key.id, merchant, mode: key.mode, livemode: key.mode === 'live', canRefund: key.can_refund };
    const decision = rateLimiter.take(key.id, Date.now());
    if (!decision.allowed) {
      throw new ApiError('rate_limit_exceeded', { retryAfterSeconds: decision.retryAfterSeconds, message: 'Too many requests with this API key; retry after the Retry-After delay.' });
    }
    await next();
  };
}
