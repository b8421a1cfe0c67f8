// Runs a Temporal Schedule's action now (as the UI's "Trigger" does) and finds the workflow run it started.
import { ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { registerChoreSchedules, type ChoreSettings } from '../../src/temporal/chore-schedules';
import { eventually } from './api';

export async function triggerSchedule(
  client: Client, scheduleId: string, overlap: ScheduleOverlapPolicy = ScheduleOverlapPolicy.ALLOW_ALL,
): Promise<{ workflowId: string; runId: string }> {
  const handle = client.schedule.getHandle(scheduleId);
  // Known by run id: two triggers in one second start runs of the same workflow id.
  const before = new Set((await handle.describe()).info.recentActions.map((a) => a.action.workflow.firstExecutionRunId));
  // By default whatever runs already: a run still going (the suite's CVC sweep runs every second)
  // would make the schedule's SKIP policy drop the trigger. A run started so is not watched by the
  // schedule, and the next run does not get its result: BUFFER_ONE waits for it.
  await handle.trigger(overlap);
  const described = await eventually(() => handle.describe(), (d) => d.info.recentActions.some((a) => !before.has(a.action.workflow.firstExecutionRunId)), 20_000);
  const run = described.info.recentActions.filter((a) => !before.has(a.action.workflow.firstExecutionRunId)).at(-1)!;
  return { workflowId: run.action.workflow.workflowId, runId: run.action.workflow.firstExecutionRunId };
}

/**
 * The chore schedules with these settings on the suite's task queue, and no run left waiting on
 * another queue (which would hold the schedule's SKIP policy for its hour). Workers on queues of
 * their own no longer register them (CHORE_SCHEDULES=off, test/helpers/test-env.ts); this still
 * puts back what a test changed.
 */
export async function resetChoreSchedules(client: Client, settings: ChoreSettings): Promise<void> {
  for await (const run of client.workflow.list({ query: "WorkflowId STARTS_WITH 'chore-' AND ExecutionStatus = 'Running'" })) {
    if (run.taskQueue !== settings.taskQueue) await client.workflow.getHandle(run.workflowId, run.runId).terminate('test: a chore run on a queue no worker polls').catch(() => {});
  }
  await registerChoreSchedules(client, settings);
}
