// When a workflow looks an object up at the provider again (a Payment's authorization, a Refund, a
// Payout), until the provider settles it: at the settle time the provider gave while that is ahead,
// otherwise on an exponential backoff, and never sooner than a Retry-After the provider sent. Pure
// and deterministic: the workflows run it, and a run hands its PollState to the next.

export interface PollSchedule {
  initialSeconds: number;
  maxSeconds: number;
}

/** What the provider's last answer said about the next look. */
export interface PollHint {
  /** The Retry-After of an answer that proved nothing (429, 503): never ask sooner. */
  retryAfterSeconds?: number | null;
  /** A processing object settles at this time (ms): look then. */
  settleAtMs?: number | null;
}

/** Where a poll stands: plain data, so that a run continued as new goes on from it. */
export interface PollState {
  intervalSeconds: number;
  hint: PollHint;
}

/** No timer shorter than this: a settle time just ahead is looked at once it has passed. */
const MIN_DELAY_MS = 50;

export function startPolling(schedule: PollSchedule, hint: PollHint = {}): PollState {
  return { intervalSeconds: schedule.initialSeconds, hint };
}

/**
 * Milliseconds until the next look. A settle time that has passed says the provider is late: the
 * backoff applies, so that a provider repeating it is not asked every few milliseconds.
 */
export function pollDelayMs(poll: PollState, nowMs: number): number {
  const { settleAtMs, retryAfterSeconds } = poll.hint;
  if (settleAtMs !== undefined && settleAtMs !== null && settleAtMs > nowMs) return Math.max(settleAtMs - nowMs, MIN_DELAY_MS);
  return Math.max(poll.intervalSeconds, retryAfterSeconds ?? 0) * 1000;
}

/** After a look: the backoff doubles up to its cap, and the answer's hint replaces the last one. */
export function nextPoll(poll: PollState, schedule: PollSchedule, hint: PollHint): PollState {
  return { intervalSeconds: Math.min(Math.max(poll.intervalSeconds, schedule.initialSeconds) * 2, schedule.maxSeconds), hint };
}

/** What a provider's answer says of the next look: when a processing object settles, or its Retry-After. */
export function pollHint(answer: { kind: string; settleAt?: number; retryAfterSeconds?: number | null }): PollHint {
  if (answer.kind === 'processing') return { settleAtMs: answer.settleAt ?? null };
  if (answer.kind === 'unanswered') return { retryAfterSeconds: answer.retryAfterSeconds ?? null };
  return {};
}
