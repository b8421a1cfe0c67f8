// RefundWorkflow: one per Refund (workflow id = refund id), started by the projector of its
// PaymentWorkflow, which keeps the refundable balance and has submitted the refund already
// (workflows/payment/refund-window.ts). It reads as its phases: submission (resubmitting while the
// provider has not answered), then settlement (following the refund to a terminal status). It
// reports every step to the Payment through the payment contract's `refundProgress` signal, and
// keeps its history bounded through continue-as-new. Deterministic: it imports only
// @temporalio/workflow, the contracts, other workflow modules, activity types and pure modules.
import type { RefundWorkflowFn } from '../../contracts/refund';
import { RefundState } from './state';
import { settlement } from './settlement';
import { submission } from './submission';

export const RefundWorkflow: RefundWorkflowFn = async (input) => {
  const state = new RefundState(input);
  const answered = state.providerId === null ? await submission(state) : null;
  return answered ?? settlement(state, state.providerId!);
};
