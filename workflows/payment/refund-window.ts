// Phase 4, refund window: a SUCCEEDED Payment owns its refundable balance until the window closes
// and no refund is in flight. The `refund` update reserves the amount before its first await, so
// concurrent refunds see it as taken; it submits the refund to the provider once that is in history,
// records the answer (recordProgress, as for every later report), has the projector start the
// refund's RefundWorkflow (which owns settlement and polling) with that answer, and returns it: the
// API answers from the workflow task that records the provider's answer, without waiting for the
// projector. The RefundWorkflow reports later moves through `refundProgress`, and a failed refund
// gives its amount back. History stays bounded through continue-as-new; a run about to continue
// sends new refunds back to be sent again to the next run.
import { ApplicationFailure, condition, continueAsNew, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { failureMessage } from '../../src/domain/failure-codes';
import { refundsMovedSince, type RefundView } from '../../src/domain/payment';
import { amountRefundable, checkRefund, isTerminalRefundStatus } from '../../src/domain/refunds';
import type { RefundResult } from '../../src/provider/types';
import {
  refundProgressSignal, refundUpdate, TRY_AGAIN_SHORTLY, type PaymentWorkflowFn, type RefundCommand, type RefundOutcome,
} from '../../contracts/payment';
import type { RefundProgress } from '../../contracts/refund';
import { nowSeconds } from '../projection';
import { refundProgress } from '../refund/progress';
import { orUnanswered } from '../unanswered';
import { sync } from './activities';
import type { PaymentState } from './state';

export function handleRefunds(state: PaymentState): void {
  setHandler(refundUpdate, (command) => refund(state, command), {
    validator: (command) => {
      if (refundById(state, command.refundId)) return; // a retry of an accepted refund
      // A run about to continue as new takes no more refunds, or under steady refunds it would never
      // be quiet enough to go and its history would outgrow the server's limits. The caller waits
      // for this run to end and sends the same update again; a rejection leaves nothing in history.
      if (state.rollOverDue()) throw ApplicationFailure.nonRetryable('the Payment is continuing as new', TRY_AGAIN_SHORTLY, workflowInfo().runId);
      const { payment } = state;
      const check = checkRefund(payment.status, payment.amount, requestedAmount(state, command), payment.refunds);
      if (!check.ok) throw ApplicationFailure.nonRetryable(check.code, check.code);
    },
  });
  setHandler(refundProgressSignal, (progress) => recordProgress(state, progress));
}

export async function refundWindow(state: PaymentState): Promise<void> {
  const windowEndsMs = ((state.payment.status_transitions.succeeded_at ?? nowSeconds()) + state.settings.refundWindowSeconds) * 1000;
  // The window's end is read from the clock only once a wait returns (history has its cause), not
  // inside the condition: see HOLD_ENDS_ON_TIMER_PATCH (workflows/payment/state.ts).
  const onTimer = patched(WINDOW_ENDS_ON_TIMER_PATCH);
  let ended = false;
  const windowOver = () => (onTimer ? ended : Date.now() >= windowEndsMs);
  const closed = () => windowOver() && state.payment.refunds.every((r) => isTerminalRefundStatus(r.status));
  for (;;) {
    await condition(() => closed() || state.rollOverDue(), Math.max(windowEndsMs - Date.now(), 1000));
    ended = Date.now() >= windowEndsMs;
    if (closed()) return;
    if (state.rollOverDue()) {
      // No refund handler may be mid-way (allHandlersFinished, through quiet), or its update would
      // be lost with this run, and every RefundWorkflow start must be recorded (the projection idle);
      // refunds that arrive meanwhile are sent back to try again (the validator).
      await condition(() => state.quiet());
      await continueAsNew<PaymentWorkflowFn>(state.continued());
    }
  }
}

/** The refund window's end is seen when a wait returns, never inside a condition (see refundWindow). */
const WINDOW_ENDS_ON_TIMER_PATCH = 'refund-window-ends-on-timer';

const refundById = (state: PaymentState, id: string) => state.payment.refunds.find((r) => r.id === id);

/** The amount a refund command asks for, on the current balance. */
function requestedAmount(state: PaymentState, command: RefundCommand): number {
  const { payment } = state;
  return command.remaining ? amountRefundable(payment.status, payment.amount, payment.refunds) : command.amount;
}

async function refund(state: PaymentState, command: RefundCommand): Promise<RefundOutcome> {
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
    state.refundsThisRun += 1;
    state.beginSubmission();
    try {
      const submission = await submit(state, reserved);
      recordProgress(state, refundProgress(id, submission));
      startRefundWorkflow(state, refundById(state, id)!, submission);
    } finally {
      state.endSubmission();
    }
  }
  // A retry of a refund whose submission is still with the provider waits for its answer.
  await condition(() => refundById(state, id)!.status !== 'PENDING');
  // Only the refunds the read model may not show yet: a Payment refunded hundreds of times would
  // otherwise repeat them all in each answer's history.
  return state.answered({ refund: refundById(state, id)!, payment: { ...state.payment, refunds: refundsMovedSince(state.payment.refunds, state.projection.projectedState()?.refunds ?? []) } });
}

/**
 * Submits the refund under the provider key derived from its id (`ref_x:refund`), as an activity
 * (dispatched eagerly with the task that accepts the update): the provider is called only once the
 * update's acceptance, and with it this reservation, is in history. A retried activity submits again
 * under the same key and gets the refund the provider already holds. Not a local activity: a local
 * call reaches the provider before its task is in history, and the task run again after a lost one
 * may take a different set of concurrent refunds, leaving provider refunds no Payment shows (seen:
 * 20 parallel refunds of a tenth, 15 answered, 5 of them rejected by the provider as over the amount).
 */
async function submit(state: PaymentState, refund: RefundView): Promise<RefundResult> {
  return orUnanswered(sync.submitRefund({
    refundId: refund.id, livemode: state.payment.livemode, authorizationId: state.providerId ?? '', amount: refund.amount, currency: refund.currency,
  }));
}

/** The refund's own workflow, started with the Payment's next change record (workflows/projection.ts). */
function startRefundWorkflow(state: PaymentState, refund: RefundView, submission: RefundResult): void {
  const { payment, settings } = state;
  state.projection.startRefundWorkflow({
    refund,
    submission,
    livemode: payment.livemode,
    merchantId: payment.merchant_id,
    paymentWorkflowId: payment.id,
    authorizationId: state.providerId ?? '',
    pollIntervalSeconds: settings.pollIntervalSeconds,
    maxPollIntervalSeconds: settings.maxPollIntervalSeconds,
    pollsPerRun: settings.pollsPerRun,
  });
}

function recordProgress(state: PaymentState, progress: RefundProgress): void {
  const { payment } = state;
  const index = payment.refunds.findIndex((r) => r.id === progress.refundId);
  if (index < 0) return;
  const current = payment.refunds[index]!;
  if (isTerminalRefundStatus(current.status) || current.status === progress.status) return;
  const now = nowSeconds();
  const updated: RefundView = {
    ...current,
    status: progress.status,
    failure_code: progress.failureCode,
    failure_message: progress.failureCode ? failureMessage(progress.failureCode) : null,
    updated_at: now,
    completed_at: isTerminalRefundStatus(progress.status) ? now : null,
  };
  const refunds = payment.refunds.slice();
  refunds[index] = updated;
  state.change({ refunds });
  state.projection.queueEvent({ kind: 'refund', refund: updated, livemode: payment.livemode }, updated.status);
  // A merchant who listens only to Payment events sees the balance change: the Payment after the refund.
  if (updated.status === 'SUCCEEDED') state.projection.queueEvent({ kind: 'payment', payment: state.payment }, 'REFUNDED');
}
