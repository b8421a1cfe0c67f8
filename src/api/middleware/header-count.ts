// At most `maxHeaders` header lines per request. Node keeps one more than that (transport.ts) and
// drops the rest silently, so a request that reaches it is refused here rather than read without
// some of its headers.
import type { Context, Next } from 'koa';
import { ApiError } from '../../domain/errors';

export function refuseTooManyHeaders(maxHeaders: number) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.req.rawHeaders.length / 2 > maxHeaders) {
      throw new ApiError('parameter_invalid', { status: 431, message: `A request may have at most ${maxHeaders} header lines.` });
    }
    await next();
  };
}
