// PayoutWorkflow: one per Payout (workflow id = payout id), started with Update-with-Start. It is
// the single writer of its Payout, and reads as its phases: submission (answering the `submit`
// update), then resolution until the Payout is terminal. Deterministic: it imports only
// @temporalio/workflow, the contracts, other workflow modules, activity types and pure modules.
import { setHandler } from '@temporalio/workflow';
import { payoutQuery, type PayoutWorkflowFn } from '../../contracts/payout';
import { resolution } from './resolution';
import { PayoutState } from './state';
import { handleSubmission, submission } from './submission';

export const PayoutWorkflow: PayoutWorkflowFn = async (input) => {
  const state = new PayoutState(input);
  setHandler(payoutQuery, () => state.payout);
  handleSubmission(state);

  if (!state.submitted) await submission(state);
  await resolution(state);
  // Terminal: the destination card goes with the last change record.
  state.projection.shredCard(input.cardToken);
  await state.projection.stop();
  return state.payout;
};
