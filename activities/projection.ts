// What follows a persisted change of an object its workflow projects (a Payment, a Payout): one
// `recordChange` writes the read model, starts the RefundWorkflows of refunds the change took,
// publishes the events that projection shows (the outbox), and shreds cards whose last use is now
// in history. One activity per projector turn (workflows/projection.ts).
import { recordPaymentProjection } from '../src/read-models/payments';
import { recordPayoutProjection } from '../src/read-models/payouts';
import type { EventSubject, PendingEvent } from '../src/domain/events';
import { startRefundWorkflow } from '../src/temporal/start-refund';
import type { RefundWorkflowInput } from '../contracts/refund';
import type { ActivityDeps } from './deps';
import { publishEvents } from './webhooks';

/** An object with a read model, as its workflow holds it. */
export type ProjectedObject = Extract<EventSubject, { kind: 'payment' | 'payout' }>;

export interface ObjectChange {
  /** The object to project, or null when only events or a shredding are due. */
  object: ProjectedObject | null;
  /** Events the projection shows, published after it. */
  events: PendingEvent[];
  shredCardTokens: string[];
  /** RefundWorkflows to start (idempotent by refund id). */
  refundWorkflows: RefundWorkflowInput[];
}

export function createProjectionActivities(deps: ActivityDeps) {
  return {
    async recordChange(change: ObjectChange): Promise<void> {
      for (const token of change.shredCardTokens) await deps.vault.shred(token);
      if (change.object?.kind === 'payment') await recordPaymentProjection(deps.dataSource, deps.secretBox, change.object.payment);
      if (change.object?.kind === 'payout') await recordPayoutProjection(deps.dataSource, change.object.payout);
      for (const input of change.refundWorkflows) await startRefundWorkflow(deps, input);
      await publishEvents(deps, change.events);
    },

    /** A card the workflow will not use, shredded now (not with a change record). */
    async shredCard(token: string): Promise<void> {
      await deps.vault.shred(token);
    },
  };
}

export type ProjectionActivities = ReturnType<typeof createProjectionActivities>;
