// Bearer API key authentication (docs/api-reference.md, "Merchants, keys and modes"). Every failure
// is the same 401.
import type { Next } from 'koa';
import { hashApiKey, parseApiKey } from '../../domain/api-keys';
import { ApiError } from '../../domain/errors';
import type { RateDecision } from '../../domain/rate-limit';
import { authenticateKey } from '../../services/authentication';
import type { Deps } from '../../services/context';
import type { AppContext } from '../context';

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
    // The scheme name is case-insensitive (RFC 9110 11.1); the key itself is not.
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    const parsed = match ? parseApiKey(match[1]!) : null;
    if (!match || !parsed) throw new ApiError('invalid_api_key');
    const hash = hashApiKey(match[1]!);
    const known = rateLimiter.knows(hash);
    if (known) refuseIfLimited(rateLimiter.take(hash, Date.now()));
    const auth = await authenticateKey(dataSource, hash, parsed.mode, Math.floor(Date.now() / 1000));
    if (!auth) throw new ApiError('invalid_api_key');
    ctx.state.auth = auth;
    if (!known) refuseIfLimited(rateLimiter.take(hash, Date.now()));
    await next();
  };
}
