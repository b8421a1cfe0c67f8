// Reading request bodies: the one place that bounds their size, the time they may take to arrive
// and their encoding. The JSON operations, the hosted page form and provider notifications use it.
import { TextDecoder } from 'node:util';
import getRawBody from 'raw-body';
import { ApiError } from '../domain/errors';
import type { AppContext } from './context';

export type BodyProblem = 'too_large' | 'too_slow' | 'not_utf8' | 'unreadable';
export type BodyRead = { text: string } | { problem: BodyProblem };

// Fatal: bytes that are not UTF-8 (a stray byte, an encoded surrogate) are refused, not replaced by
// U+FFFD, so the text kept is always the text sent. A leading byte order mark is dropped.
const utf8 = new TextDecoder('utf-8', { fatal: true });

class TooSlow extends Error {}

/** The body as text, or why it cannot be had. */
export async function readBody(ctx: AppContext, limitBytes: number): Promise<BodyRead> {
  const { req } = ctx;
  let timer: NodeJS.Timeout | undefined;
  // A body that has all arrived is read whatever the time: the wait was ours, not the client's.
  const late = req.complete ? null : new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TooSlow()), Math.max(0, ctx.state.bodyDeadline.at - Date.now()));
  });
  let bytes: Buffer;
  try {
    // Given the declared length, raw-body refuses a body over the limit before reading a byte of it.
    const reading = getRawBody(req, { limit: limitBytes, length: req.headers['content-length'] });
    bytes = await (late ? Promise.race([reading, late]) : reading);
  } catch (error) {
    if (error instanceof TooSlow) return { problem: 'too_slow' };
    return { problem: (error as { type?: string }).type === 'entity.too.large' ? 'too_large' : 'unreadable' };
  } finally {
    clearTimeout(timer);
  }
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    return { problem: 'not_utf8' };
  }
}

/**
 * The answer to a body that could not be had: `request_body_invalid`, with `408` for one that did not
 * arrive in time (nothing was done, so the same request may be sent again with the same key).
 */
export function bodyProblemError(ctx: AppContext, problem: BodyProblem, limitBytes: number): ApiError {
  switch (problem) {
    case 'too_large':
      return new ApiError('request_body_invalid', { message: `The request body must be at most ${limitBytes} bytes.` });
    case 'too_slow':
      return new ApiError('request_body_invalid', {
        status: 408,
        message: `The request body did not arrive within ${ctx.state.bodyDeadline.afterMs} ms of its headers; send it at once, with the same Idempotency-Key.`,
      });
    case 'not_utf8':
      return new ApiError('request_body_invalid', { message: 'The request body must be UTF-8 text; it holds bytes that are not (a stray byte or an encoded surrogate).' });
    case 'unreadable':
      return new ApiError('request_body_invalid', { message: 'The request body could not be read.' });
  }
}

export async function readBodyText(ctx: AppContext, limitBytes: number): Promise<string> {
  const read = await readBody(ctx, limitBytes);
  if ('problem' in read) throw bodyProblemError(ctx, read.problem, limitBytes);
  return read.text;
}
