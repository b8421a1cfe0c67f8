// The RefundWorkflow's activities.
import { proxyActivities } from '@temporalio/workflow';
import type { PaymentActivities } from '../../activities/payment';

// The provider client times out after 8 s and never throws, so an activity only fails when its
// worker dies; it is then retried (with the same provider key) once this timeout has passed.
export const provider = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '12 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
