// Workflows are called through their contracts (contracts/) only. The names the contracts
// give are the names the worker registers, and the typed calls refuse what a contract does not
// allow: the `@ts-expect-error` lines below fail the type check (`tsc`, part of `npm test`) the day
// a call compiles that should not.
import type { Client } from '@temporalio/client';
import { executeUpdate, executeUpdateWithStart } from '../../src/temporal/calls';
import type { RefundView } from '../../src/domain/payment';
import * as workflows from '../../workflows';
import { createUpdate, paymentWorkflow, refundUpdate, settledUpdate, type PaymentWorkflowInput } from '../../contracts/payment';
import { payoutWorkflow } from '../../contracts/payout';
import { refundWorkflow } from '../../contracts/refund';
import { webhookDeliveryWorkflow } from '../../contracts/webhook-delivery';
import { cvcSweepWorkflow, eventPurgeWorkflow, idempotencyPurgeWorkflow } from '../../contracts/chores';

it('every workflow type is registered under the name its contract gives it, and nothing else is', () => {
  const contracts = [
    paymentWorkflow, refundWorkflow, payoutWorkflow, webhookDeliveryWorkflow, idempotencyPurgeWorkflow, eventPurgeWorkflow, cvcSweepWorkflow,
  ].map((w) => w.name).sort();
  expect(Object.keys(workflows).sort()).toEqual(contracts);
  for (const name of contracts) expect(typeof (workflows as Record<string, unknown>)[name]).toBe('function');
});

// Compiled, never run: the type check is the test.
export async function typeChecks(client: Client, input: PaymentWorkflowInput): Promise<void> {
  const command = { refundId: 'ref_1', amount: 1, reason: 'r', merchantReference: null };
  const { refund }: { refund: RefundView } = await executeUpdate(client, 1000, 'pay_1', refundUpdate, command);
  void refund;
  // @ts-expect-error a refund update answers with the refund and its Payment, not a Payment's create outcome
  const wrongResult: { kind: 'payment' } = await executeUpdate(client, 1000, 'pay_1', refundUpdate, command);
  void wrongResult;
  // @ts-expect-error the refund update takes its command
  await executeUpdate(client, 1000, 'pay_1', refundUpdate);
  // @ts-expect-error the settled update takes no argument
  await executeUpdate(client, 1000, 'pay_1', settledUpdate, command);
  const start = { workflow: paymentWorkflow, workflowId: 'pay_1', taskQueue: 'q', searchAttributes: undefined as never, summary: 's' };
  await executeUpdateWithStart(client, 1000, createUpdate, { ...start, args: [input] });
  // @ts-expect-error a PaymentWorkflow starts with its input
  await executeUpdateWithStart(client, 1000, createUpdate, { ...start, args: [{ refundId: 'ref_1' }] });
}
