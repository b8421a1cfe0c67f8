// Phase 4, refund window: a SUCCEEDED Payment owns its refundable balance until the window closes
// and no refund is in flight. A refund is reserved before the handler's first await, so concurrent
// refunds see its amount as taken; its RefundWorkflow reports back through `refundProgress`, and a
// failed refund gives its amount back. History stays bounded through continue-as-new.
import {
  ApplicationFailure, ParentClosePolicy, condition, continueAsNew, setHandler, startChild, workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { failureMessage } from '../../src/domain/failure-codes';
import type { RefundView } from '../../src/domain/payment';
import { amountRefundable, checkRefund } from '../../src/domain/refunds';
import { searchAttributesFor } from '../contracts/search-attributes';
import { refundProgressSignal, refundUpdate, type PaymentWorkflowFn, type RefundCommand } from '../contracts/payment';
import { refundWorkflow, type RefundProgress, type RefundWorkflowFn } from '../contracts/refund';
import { nowSeconds } from '../projection';
import type { PaymentState } from './state';

const ACTIVE_REFUND = (r: RefundView) => r.status === 'PENDING' || r.status === 'PROCESSING';

export function handleRefunds(state: PaymentState): void {
  setHandler(refundUpdate, (command) => refund(state, command), {
    validator: (command) => {
      if (refundById(state, command.refundId)) return; // a retry of an accepted refund
      const { payment } = state;
      const check = checkRefund(payment.status, payment.amount, requestedAmount(state, command), payment.refunds);
      if (!check.ok) throw ApplicationFailure.nonRetryable(check.code, check.code);
    },
  });
  setHandler(refundProgressSignal, (progress) => recordProgress(state, progress));
}

export async function refundWindow(state: PaymentState): Promise<void> {
  const windowEndsMs = ((state.payment.status_transitions.succeeded_at ?? nowSeconds()) + state.settings.refundWindowSeconds) * 1000;
  for (;;) {
    const closed = () => Date.now() >= windowEndsMs && !state.payment.refunds.some(ACTIVE_REFUND);
    await condition(() => closed() || workflowInfo().continueAsNewSuggested, Math.max(windowEndsMs - Date.now(), 1000));
    if (closed()) return;
    if (workflowInfo().continueAsNewSuggested) {
      await condition(() => state.quiet());
      await continueAsNew<PaymentWorkflowFn>(state.continued());
    }
  }
}

const refundById = (state: PaymentState, id: string) => state.payment.refunds.find((r) => r.id === id);

/** The amount a refund command asks for, on the current balance. */
function requestedAmount(state: PaymentState, command: RefundCommand): number {
  const { payment } = state;
  return command.remaining ? amountRefundable(payment.status, payment.amount, payment.refunds) : command.amount;
}

async function refund(state: PaymentState, command: RefundCommand): Promise<RefundView> {
  const id = command.refundId;
  if (!refundById(state, id)) {
    // The validator passed on this very state; checking again keeps the ledger sound even if
    // another handler ever ran in between.
    const { payment } = state;
    const amount = requestedAmount(state, command);
    const check = checkRefund(payment.status, payment.amount, amount, payment.refunds);
    if (!check.ok) throw ApplicationFailure.nonRetryable(check.code, check.code);
    const now = nowSeconds();
    const reserved: RefundView = {
      id,
      payment_id: payment.id,
      amount,
      currency: payment.currency,
      merchant_reference: command.merchantReference,
      reason: command.reason,
      refund_type: check.refundType,
      status: 'PENDING',
      failure_code: null,
      failure_message: null,
      created_at: now,
      updated_at: now,
      completed_at: null,
    };
    // Reserved before the first await: concurrent refunds see this amount as taken.
    state.change({ refunds: [...payment.refunds, reserved] });
    await startRefundWorkflow(state, reserved);
  }
  // The first report of the refund workflow: PROCESSING, or FAILED when rejected at submission.
  await condition(() => refundById(state, id)!.status !== 'PENDING');
  await state.projection.projected();
  return refundById(state, id)!;
}

/** The refund's own workflow; a start that already happened (same id) reports to us all the same. */
async function startRefundWorkflow(state: PaymentState, refund: RefundView): Promise<void> {
  const { payment, settings } = state;
  const summary = `refund of ${refund.amount} ${refund.currency} on ${payment.id}`;
  try {
    await startChild<RefundWorkflowFn>(refundWorkflow.name, {
      workflowId: refund.id,
      args: [{
        refund,
        livemode: payment.livemode,
        merchantId: payment.merchant_id,
        paymentWorkflowId: payment.id,
        authorizationId: state.providerId ?? '',
        pollIntervalSeconds: settings.pollIntervalSeconds,
        maxPollIntervalSeconds: settings.maxPollIntervalSeconds,
      }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: searchAttributesFor({
        objectType: 'refund', merchantId: payment.merchant_id, livemode: payment.livemode, amount: refund.amount, currency: refund.currency, status: refund.status,
      }),
      memo: { summary },
      staticSummary: summary,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

function recordProgress(state: PaymentState, progress: RefundProgress): void {
  const { payment } = state;
  const index = payment.refunds.findIndex((r) => r.id === progress.refundId);
  if (index < 0) return;
  const current = payment.refunds[index]!;
  if (current.status === 'SUCCEEDED' || current.status === 'FAILED' || current.status === progress.status) return;
  const now = nowSeconds();
  const updated: RefundView = {
    ...current,
    status: progress.status,
    failure_code: progress.failureCode,
    failure_message: progress.failureCode ? failureMessage(progress.failureCode) : null,
    updated_at: now,
    completed_at: progress.status === 'SUCCEEDED' || progress.status === 'FAILED' ? now : null,
  };
  const refunds = payment.refunds.slice();
  refunds[index] = updated;
  state.change({ refunds });
  state.projection.queueEvent({ kind: 'refund', refund: updated, livemode: payment.livemode }, updated.status);
  // A merchant who listens only to Payment events sees the balance change: the Payment after the refund.
  if (updated.status === 'SUCCEEDED') state.projection.queueEvent({ kind: 'payment', payment: state.payment }, 'REFUNDED');
}
