// executeUpdate (src/temporal/calls.ts) against a stand-in for Temporal's client: how an update that
// a run about to continue as new turned away is sent again.
import { WorkflowContinuedAsNewError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { executeUpdate } from '../../src/temporal/calls';
import { refundUpdate, TRY_AGAIN_SHORTLY, type RefundOutcome } from '../../contracts/payment';

function fakeTemporal() {
  let currentRun = 'run-1';
  let endRun!: () => void;
  const runEnded = new Promise<void>((resolve) => { endRun = () => { currentRun = 'run-2'; resolve(); }; });
  const sent: string[] = [];
  const waitedFor: string[] = [];
  const client = {
    withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn(),
    workflow: {
      getHandle: (_id: string, runId?: string) => ({
        async executeUpdate() {
          sent.push(currentRun);
          if (currentRun === 'run-1') {
            throw new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.nonRetryable('continuing as new', TRY_AGAIN_SHORTLY, 'run-1'));
          }
          return { refund: { id: 'ref_1' } } as unknown as RefundOutcome;
        },
        async result() {
          waitedFor.push(runId ?? '');
          await runEnded;
          throw new WorkflowContinuedAsNewError('continued as new', 'run-2');
        },
      }),
    },
  } as unknown as Client;
  return { client, endRun, sent, waitedFor };
}

const command = { refundId: 'ref_1', amount: 1, reason: 'requested_by_customer', merchantReference: null };

it('an update a run about to continue as new turned away goes once more, after that run has ended', async () => {
  const temporal = fakeTemporal();
  const answer = executeUpdate(temporal.client, 5_000, 'pay_1', refundUpdate, command);
  // However long the run takes to end, the update is not sent again meanwhile: each attempt would be
  // a workflow task of the same Payment, queued with the tasks the run needs to end.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(temporal.sent).toEqual(['run-1']);
  expect(temporal.waitedFor).toEqual(['run-1']);
  temporal.endRun();
  await expect(answer).resolves.toMatchObject({ refund: { id: 'ref_1' } });
  expect(temporal.sent).toEqual(['run-1', 'run-2']);
});
