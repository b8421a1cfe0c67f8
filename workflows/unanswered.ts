// A provider call whose activity failed (out of retries, a card missing from the vault, no live
// provider configured) is, to the workflow, a request the provider left unanswered: it may have acted.
import type { Unanswered } from '../src/provider/types';

export async function orUnanswered<T>(call: Promise<T>): Promise<T | Unanswered> {
  try {
    return await call;
  } catch {
    return { kind: 'unanswered', cause: 'call_failed', mayHaveActed: true, retryAfterSeconds: null };
  }
}
