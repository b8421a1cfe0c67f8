// The Idempotency-Key header of create operations (docs/api-reference.md, "Order of checks").
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import type { AppContext } from '../context';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export async function requireIdempotencyKey(ctx: AppContext, next: Next): Promise<void> {
  const key = ctx.get('idempotency-key');
  if (key === '') throw new ApiError('parameter_missing', { param: 'Idempotency-Key', message: 'The Idempotency-Key header is required on create operations.' });
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ApiError('parameter_invalid', { param: 'Idempotency-Key', message: `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.` });
  }
  ctx.state.idempotencyKey = key;
  await next();
}
