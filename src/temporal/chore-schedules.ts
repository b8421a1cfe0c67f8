// The periodic chores run once per cluster as Temporal Schedules, not as timers in every replica:
// every worker registers them at start (created, or updated to its settings when they exist), so a
// deploy that changes an interval changes the schedule. An operator's pause survives that: the
// schedule's state is kept. Each run is a workflow of workflows/chores.ts whose result holds its counts.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsStartWorkflowAction, type ScheduleSpec } from '@temporalio/client';
import type { Workflow } from '@temporalio/workflow';
import type { Config } from '../config';
import { cvcMaxAgeSeconds } from '../vault/card-vault';
import { cvcSweepWorkflow, eventPurgeWorkflow, idempotencyPurgeWorkflow } from '../../contracts/chores';
import type { WorkflowType } from '../../contracts/workflow-type';

/** Expired idempotency records are purged hourly: their retention is days, the exact hour does not matter. */
const IDEMPOTENCY_PURGE_INTERVAL_SECONDS = 3600;

export interface ChoreSchedule {
  /** The schedule's id, as the Temporal UI lists it; each run's workflow id starts with it. */
  id: string;
  intervalSeconds: number;
  action: ScheduleOptionsStartWorkflowAction<Workflow>;
}

export type ChoreSettings = Pick<Config, 'taskQueue' | 'eventRetentionDays' | 'eventPurgeIntervalSeconds' | 'vaultSweepSeconds' | 'paymentActionTtlSeconds'>;

function action<F extends Workflow>(type: WorkflowType<F>, id: string, taskQueue: string, args: Parameters<F>): ScheduleOptionsStartWorkflowAction<Workflow> {
  // A run that hangs (its database gone) ends on its own; the next scheduled one starts afresh.
  return { type: 'startWorkflow', workflowType: type.name, workflowId: id, taskQueue, args: args as unknown[], workflowRunTimeout: '1 hour' };
}

/** The three chores with the intervals and arguments the settings give. */
export function choreSchedules(settings: ChoreSettings): ChoreSchedule[] {
  const { taskQueue } = settings;
  return [
    { id: 'chore-idempotency-purge', intervalSeconds: IDEMPOTENCY_PURGE_INTERVAL_SECONDS, action: action(idempotencyPurgeWorkflow, 'chore-idempotency-purge', taskQueue, []) },
    { id: 'chore-event-purge', intervalSeconds: settings.eventPurgeIntervalSeconds, action: action(eventPurgeWorkflow, 'chore-event-purge', taskQueue, [{ retentionDays: settings.eventRetentionDays }]) },
    {
      id: 'chore-cvc-sweep', intervalSeconds: settings.vaultSweepSeconds,
      action: action(cvcSweepWorkflow, 'chore-cvc-sweep', taskQueue, [{ maxAgeSeconds: cvcMaxAgeSeconds(settings.paymentActionTtlSeconds) }]),
    },
  ];
}

/**
 * Creates each chore's schedule, or updates it to these settings when it exists (another worker,
 * or an earlier start, made it): as many workers as start, one schedule each. A run still going
 * when the next is due makes that one skip; runs missed while the cluster was down are not made up
 * beyond the last minute.
 */
export async function registerChoreSchedules(
  client: Client, settings: ChoreSettings, onUnreadable: (scheduleId: string, error: unknown) => void = () => {},
): Promise<ChoreSchedule[]> {
  const schedules = choreSchedules(settings);
  for (const chore of schedules) {
    const spec: ScheduleSpec = { intervals: [{ every: `${chore.intervalSeconds} seconds` }] };
    const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' };
    try {
      await client.schedule.create({ scheduleId: chore.id, spec, action: chore.action, policies });
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      try {
        await client.schedule.getHandle(chore.id).update((previous) => ({ ...previous, spec, action: chore.action, policies }));
      } catch (unreadable) {
        // Updating reads the schedule back through the payload codec: one written under a key this
        // process's ring no longer holds cannot be read. It keeps running as it is, and the worker
        // still starts: the chores are not worth stopping payments for.
        onUnreadable(chore.id, unreadable);
      }
    }
  }
  return schedules;
}
