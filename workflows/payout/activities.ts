// The PayoutWorkflow's activities, by how long a caller may wait for them.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { PayoutActivities } from '../../activities/payout';

/** A submission after the first attempt. Longer than the provider client's own timeout, which gives up without an answer first. */
export const submission = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

export const lookup = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/**
 * The first attempt runs as a local activity, inside the workflow task that answers the update:
 * one workflow task and no activity task when the provider answers in time. A task lost with its
 * attempt runs it again under the same provider key, which gets the same payout back. A server
 * timer could not cut it short (its firing waits for the task the attempt holds), so the
 * attempt's own time-out is the answer's deadline.
 */
export function firstAttempt(answerWithinMs: number) {
  return proxyLocalActivities<PayoutActivities>({ startToCloseTimeout: answerWithinMs, retry: { maximumAttempts: 1 } });
}
