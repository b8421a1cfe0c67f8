// The PayoutWorkflow's contract: its input, the `submit` update that answers the API with the
// provider's first answer (or PENDING once that answer is late), and the `payout` query.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { PayoutView } from '../src/domain/payout';
import type { PollSchedule, PollState } from '../src/domain/polling';
import type { WorkflowType } from './workflow-type';

export interface PayoutSettings extends PollSchedule {
  /** Provider look-ups per run before continue-as-new starts a fresh history. */
  pollsPerRun: number;
  /** How long the submission waits for the provider's first answer before the Payout is answered PENDING. */
  answerWithinMs: number;
}

export interface PayoutWorkflowInput {
  payout: PayoutView;
  /** Vault token of the destination card, shredded once the Payout is terminal. */
  cardToken: string;
  settings: PayoutSettings;
  /** Set by continue-as-new: the Payout was submitted and is being resolved. */
  resolving?: PollState;
}

export type PayoutWorkflowFn = (input: PayoutWorkflowInput) => Promise<PayoutView>;
export const payoutWorkflow: WorkflowType<PayoutWorkflowFn> = { name: 'PayoutWorkflow' };

/**
 * Answers with the Payout once the provider's first answer is in history, or PENDING once
 * `answerWithinMs` passed without one. The API records the answer in the read model before replying.
 */
export const submitPayoutUpdate = defineUpdate<PayoutView, []>('submit');
export const payoutQuery = defineQuery<PayoutView>('payout');
