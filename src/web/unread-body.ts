// A request can be answered before its body has all arrived: a 401 before the body is looked at, a
// 400 for a declared length over the limit, a 408 for a body that is too slow. The answer goes out at
// once, with `Connection: close`: the rest of such a body is no start of a next request. But closing
// a socket with bytes still arriving sends a TCP reset, which can discard the answer before the
// client reads it (the client then sees a reset, not the error). So after the answer the socket only
// half-closes, reads and drops the rest of the body, and closes once it has ended (a lingering
// close), within bounds that keep a client from holding the process. A body declared over the byte
// bound is not waited for.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Context, Next } from 'koa';

export const UNREAD_BODY_LIMITS = { maxBytes: 8 * 1024 * 1024, maxMs: 2_000 };

export function closeAfterUnreadBody(limits = UNREAD_BODY_LIMITS) {
  return async (ctx: Context, next: Next): Promise<void> => {
    await next();
    const { req } = ctx;
    if (req.complete || req.destroyed) return;
    ctx.set('Connection', 'close');
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes) return;
    lingerOnClose(req, req.socket, limits);
  };
}

/** Node ends a `Connection: close` answer with `destroySoon()`; this one waits for the body first. */
function lingerOnClose(req: IncomingMessage, socket: Socket, limits: typeof UNREAD_BODY_LIMITS): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    let read = 0;
    const close = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', close);
      if (this.writableFinished) this.destroy();
      else this.once('finish', () => this.destroy());
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limits.maxBytes) close();
    };
    const timer = setTimeout(close, limits.maxMs);
    this.once('close', () => clearTimeout(timer));
    if (req.readableEnded) return close();
    req.on('data', onData).once('end', close);
    req.resume();
  };
}
