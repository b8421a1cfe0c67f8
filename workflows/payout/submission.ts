// Phase 1, submission: the Payout is submitted once, and the `submit` update answers with the status
// that first answer gives. An answer that proves nothing (429, 5xx, timeout) leaves the Payout
// PENDING, and so does an answer that has not come within `answerWithinMs`: the update answers
// PENDING then, and the same submission goes on in the background under the same provider key.
import { condition, setHandler } from '@temporalio/workflow';
import { pollHint, startPolling } from '../../src/domain/polling';
import { submitPayoutUpdate } from '../../contracts/payout';
import { orUnanswered } from '../unanswered';
import { firstAttempt, submission as submissionActivity } from './activities';
import type { PayoutState, ProviderAnswer } from './state';

// The API records this answer in the read model before it replies, so the update does not wait for
// the projector's activity and the workflow task after it.
export function handleSubmission(state: PayoutState): void {
  setHandler(submitPayoutUpdate, async () => {
    await condition(() => state.answered);
    return state.payout;
  });
}

export async function submission(state: PayoutState): Promise<void> {
  let first: ProviderAnswer;
  try {
    first = await firstAttempt(state.settings.answerWithinMs).submitPayout(state.submissionInput());
  } catch {
    // No answer within `answerWithinMs` (or the attempt failed): the merchant hears PENDING now,
    // and the submission goes on as a regular activity, retried, under the same provider key.
    state.answerSubmit();
    first = await submit(state);
  }
  state.poll = startPolling(state.settings, pollHint(first));
  state.change(state.outcome(first));
  if (!state.answered) state.answerSubmit();
  state.submitted = true;
}

/** A submission under the Payout's provider key: the same payout however often it is sent. */
export function submit(state: PayoutState): Promise<ProviderAnswer> {
  return orUnanswered(submissionActivity.submitPayout(state.submissionInput()));
}
