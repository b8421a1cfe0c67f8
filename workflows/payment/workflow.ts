// PaymentWorkflow: one per Payment (workflow id = payment id). It is the single writer of its
// Payment, and reads as its phases: create, customer action (3D Secure or the hosted page, until
// done or expired), settlement, and the refund window, in which it owns the refundable balance.
// Deterministic: it imports only @temporalio/workflow, the contracts, other workflow modules, activity
// types and pure modules.
import { setHandler } from '@temporalio/workflow';
import { paymentQuery, resumeProjectionSignal, type PaymentWorkflowFn } from '../../contracts/payment';
import { awaitCreate, handleCreate } from './create';
import { customerAction, handleCustomerAction } from './customer-action';
import { handleRefunds, refundWindow } from './refund-window';
import { handleSettlement, settlement } from './settlement';
import { PaymentState } from './state';

export const PaymentWorkflow: PaymentWorkflowFn = async (input) => {
  const state = new PaymentState(input);
  setHandler(paymentQuery, () => state.payment);
  setHandler(resumeProjectionSignal, () => state.projection.resume());
  handleCreate(state);
  handleCustomerAction(state);
  handleSettlement(state);
  handleRefunds(state);

  if (await awaitCreate(state)) {
    await customerAction(state);
    await settlement(state);
    if (state.payment.status === 'SUCCEEDED') await refundWindow(state);
  }
  await state.projection.stop();
  return state.payment;
};
