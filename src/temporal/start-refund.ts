// Starting a Refund's RefundWorkflow: from the Payment's projector (`recordChange`), once the
// update that took the refund is in history. Idempotent by refund id: a retried activity, or a
// RefundWorkflow that has already ended, starts nothing more.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { startWorkflow } from './calls';
import { refundWorkflow, type RefundWorkflowInput } from '../../contracts/refund';
import { searchAttributesFor } from '../../contracts/search-attributes';

export interface RefundStarterDeps {
  temporal: Client;
  taskQueue: string;
}

export async function startRefundWorkflow(deps: RefundStarterDeps, input: RefundWorkflowInput): Promise<void> {
  const { refund } = input;
  const summary = `refund of ${refund.amount} ${refund.currency} on ${input.paymentWorkflowId}`;
  try {
    await startWorkflow(deps.temporal, refundWorkflow, {
      workflowId: refund.id,
      taskQueue: deps.taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // Its first task comes back with the start's answer, to the worker that runs this activity,
      // instead of through the server's task queues (eager workflow start).
      requestEagerStart: true,
      typedSearchAttributes: searchAttributesFor({
        objectType: 'refund', merchantId: input.merchantId, livemode: input.livemode, amount: refund.amount, currency: refund.currency, status: refund.status,
      }),
      memo: { summary },
      staticSummary: summary,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
