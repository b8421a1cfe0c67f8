// The periodic chores, each one activity in a workflow of its own that a Temporal Schedule starts
// (src/temporal/chore-schedules.ts): the schedule makes it run once per cluster, the workflow's
// result is what the run did.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ChoreActivities } from '../activities/chores';
import type { CvcSweepResult, CvcSweepWorkflowFn, EventPurgeWorkflowFn, IdempotencyPurgeWorkflowFn } from '../contracts/chores';

// A purge deletes in batches and may take a while on a large backlog; a failed run is retried by
// the activity, and at worst by the next scheduled run.
const chores = proxyActivities<ChoreActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 5 },
});

export const IdempotencyPurgeWorkflow: IdempotencyPurgeWorkflowFn = () => chores.purgeIdempotencyKeys();

export const EventPurgeWorkflow: EventPurgeWorkflowFn = (input) => chores.purgeEvents(input.retentionDays);

export const CvcSweepWorkflow: CvcSweepWorkflowFn = (input) => {
  // The schedule hands each run the previous run's result: only cards that aged past the cutoff
  // since then are read (the first run reads every age).
  const previous = workflowInfo().lastResult as CvcSweepResult | undefined;
  return chores.forgetCvcs(input.maxAgeSeconds, previous?.cutoff ?? 0);
};
