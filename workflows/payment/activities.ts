// The PaymentWorkflow's activities, by how long a caller may wait for them.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { PaymentActivities } from '../../activities/payment';
import type { ProjectionActivities } from '../../activities/projection';
import { BACKGROUND_ACTIVITY_OPTIONS } from '../activity-options';

const SYNC_OPTIONS = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 },
} as const;

/** Calls an update's answer waits on: a few quick attempts. */
export const sync = proxyActivities<PaymentActivities & ProjectionActivities>(SYNC_OPTIONS);
/**
 * The authorization runs as a local activity: inside the workflow task that answers the update, so
 * a create costs one workflow task instead of two and an activity task. If that task is lost, the
 * authorization runs again with the same provider idempotency key and gets the same answer; that is
 * why the activity leaves the card in the vault until the answer is in history. (A refund's
 * submission is not local: workflows/payment/refund-window.ts says why.)
 */
export const local = proxyLocalActivities<PaymentActivities>(SYNC_OPTIONS);
/** Work nobody waits on: retried until it succeeds. */
export const background = proxyActivities<PaymentActivities & ProjectionActivities>(BACKGROUND_ACTIVITY_OPTIONS);
