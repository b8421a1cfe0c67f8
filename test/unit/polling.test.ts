// The one poll schedule of the workflows (src/domain/polling.ts): when a Payment's authorization, a
// Refund or a Payout is looked up at the provider again.
import { describe, expect, it } from '@jest/globals';
import { nextPoll, pollDelayMs, pollHint, startPolling, type PollState } from '../../src/domain/polling';

const schedule = { initialSeconds: 1, maxSeconds: 300 };
const at = (intervalSeconds: number, hint: PollState['hint'] = {}): PollState => ({ intervalSeconds, hint });

describe('polling', () => {
  it('starts at the initial interval and doubles after each look, up to the cap', () => {
    let poll = startPolling(schedule);
    const intervals = [poll.intervalSeconds];
    for (let i = 0; i < 10; i += 1) {
      poll = nextPoll(poll, schedule, {});
      intervals.push(poll.intervalSeconds);
    }
    expect(intervals).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
  });

  it('waits the interval, at least a Retry-After, or until the provider said it settles', () => {
    expect(pollDelayMs(at(2), 0)).toBe(2000);
    expect(pollDelayMs(at(1, { retryAfterSeconds: 5 }), 0)).toBe(5000);
    expect(pollDelayMs(at(8, { retryAfterSeconds: 5 }), 0)).toBe(8000);
    expect(pollDelayMs(at(8, { settleAtMs: 10_300 }), 10_000)).toBe(300);
    expect(pollDelayMs(at(8, { settleAtMs: 10_010 }), 10_000)).toBe(50);
  });

  it('backs off from a settle time that has passed: the provider is late, not to be asked every few milliseconds', () => {
    expect(pollDelayMs(at(8, { settleAtMs: 9_000 }), 10_000)).toBe(8000);
    expect(pollDelayMs(at(1, { settleAtMs: 9_000, retryAfterSeconds: 3 }), 10_000)).toBe(3000);
  });

  it('takes the hint of the last answer only', () => {
    const afterRateLimit = nextPoll(startPolling(schedule), schedule, { retryAfterSeconds: 30 });
    expect(pollDelayMs(afterRateLimit, 0)).toBe(30_000);
    expect(pollDelayMs(nextPoll(afterRateLimit, schedule, {}), 0)).toBe(4000);
  });

  it('reads the hint from any provider answer: a settle time, a Retry-After, or nothing', () => {
    expect(pollHint({ kind: 'processing', settleAt: 1234 })).toEqual({ settleAtMs: 1234 });
    expect(pollHint({ kind: 'unanswered', retryAfterSeconds: 7 })).toEqual({ retryAfterSeconds: 7 });
    expect(pollHint({ kind: 'unanswered', retryAfterSeconds: null })).toEqual({ retryAfterSeconds: null });
    expect(pollHint({ kind: 'succeeded' })).toEqual({});
    expect(pollHint({ kind: 'not_found' })).toEqual({});
  });
});
