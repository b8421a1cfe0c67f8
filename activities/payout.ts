// Activities of the PayoutWorkflow.
import type { ActivityDeps } from './deps';

export function createPayoutActivities(_deps: ActivityDeps) {
  return {};
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
