// A request can be answered before its body is read: a 401 before the body is looked at, a 400 for
// a declared length over the limit. Node closes a `Connection: close` socket as soon as the answer
// is written, and closing a socket with bytes still arriving sends a TCP reset, which can discard
// the answer before the client reads it (the client then sees a reset, not the error). So the rest
// of the body is read and dropped before the answer goes out, within bounds that keep a client
// from holding the process: a larger or slower body is answered at once, as before.
import type { Context, Next } from 'koa';

export const UNREAD_BODY_LIMITS = { maxBytes: 8 * 1024 * 1024, maxMs: 2_000 };

export function drainUnreadBody(limits = UNREAD_BODY_LIMITS) {
  return async (ctx: Context, next: Next): Promise<void> => {
    await next();
    const req = ctx.req;
    if (req.complete || req.destroyed) return;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes) return;
    await new Promise<void>((resolve) => {
      let read = 0;
      const finish = () => {
        clearTimeout(timer);
        req.off('data', onData).off('end', finish).off('close', finish).off('error', finish);
        resolve();
      };
      const onData = (chunk: Buffer) => {
        read += chunk.length;
        if (read > limits.maxBytes) finish();
      };
      const timer = setTimeout(finish, limits.maxMs);
      req.on('data', onData).once('end', finish).once('close', finish).once('error', finish);
      req.resume();
    });
  };
}
