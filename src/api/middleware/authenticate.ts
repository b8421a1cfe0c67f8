// Bearer API key authentication (docs/api-reference.md, "Merchants, keys and modes"). Every failure
// is the same 401.
import type { Next } from 'koa';
import { hashApiKey, parseApiKey } from '../../domain/api-keys';
import { ApiError } from '../../domain/errors';
import { authenticateKey } from '../../services/authentication';
import type { Deps } from '../../services/context';
import { clientAddressKey } from '../../domain/ip';
import type { RateDecision } from '../../web/request-limits';
import type { AppContext } from '../context';

function refuseIfLimited(decision: RateDecision, what: string): void {
  if (!decision.allowed) {
    throw new ApiError('rate_limit_exceeded', { retryAfterSeconds: decision.retryAfterSeconds, message: `Too many requests ${what}; retry after the Retry-After delay.` });
  }
}

/**
 * Authenticates the key and applies the request limits. The client address's limit comes first,
 * whatever the key: random keys from one address are refused before they cost a database look-up
 * each. Then the key's own (by its hash, so merchants never share): a key that authenticated here
 * before is limited before the database, so a refused request costs a hash and no query; a key
 * not seen yet is authenticated first, so an unknown key is 401, never the key's 429.
 */
export function authenticate(deps: Pick<Deps, 'dataSource' | 'rateLimiter'>) {
  const { dataSource, rateLimiter } = deps;
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const header = ctx.get('authorization');
    // The scheme name is case-insensitive (RFC 9110 11.1); the key itself is not.
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    const parsed = match ? parseApiKey(match[1]!) : null;
    if (!match || !parsed) throw new ApiError('invalid_api_key');
    refuseIfLimited(await rateLimiter.address(clientAddressKey(ctx.ip)), 'from this address');
    const hash = hashApiKey(match[1]!);
    const known = rateLimiter.knows(hash);
    if (known) refuseIfLimited(await rateLimiter.key(hash), 'with this API key');
    const auth = await authenticateKey(dataSource, hash, parsed.mode, Math.floor(Date.now() / 1000));
    if (!auth) throw new ApiError('invalid_api_key');
    ctx.state.auth = auth;
    if (!known) refuseIfLimited(await rateLimiter.key(hash), 'with this API key');
    await next();
  };
}
