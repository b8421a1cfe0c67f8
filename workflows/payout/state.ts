// The state of one PayoutWorkflow run: the Payout (through its projection), whether the provider has
// it and the `submit` update may answer, where polling stands, and the operations both phases use.
import { upsertSearchAttributes } from '@temporalio/workflow';
import type { SubmitPayoutInput } from '../../activities/payout';
import { failureMessage } from '../../src/domain/failure-codes';
import { isTerminalPayoutStatus, type PayoutView } from '../../src/domain/payout';
import { startPolling, type PollState } from '../../src/domain/polling';
import type { Lookup, PayoutAnswer } from '../../src/provider/types';
import type { PayoutSettings, PayoutWorkflowInput } from '../../contracts/payout';
import { ObjectStatusKey } from '../../contracts/search-attributes';
import { nowSeconds, Projection } from '../projection';

export type ProviderAnswer = Lookup<PayoutAnswer>;

export class PayoutState {
  readonly projection: Projection<PayoutView>;
  /** The provider has been sent the Payout (a run continued as new is past its submission). */
  submitted: boolean;
  /** The `submit` update may answer: the first answer is in history, or it was late and the Payout is answered PENDING. */
  answered: boolean;
  poll: PollState;

  constructor(readonly input: PayoutWorkflowInput) {
    this.submitted = input.resolving !== undefined;
    this.answered = this.submitted;
    this.poll = input.resolving ?? startPolling(input.settings);
    this.projection = new Projection(input.payout, {
      record: (payout) => ({ kind: 'payout', payout }),
      owner: { merchantId: input.payout.merchant_id, livemode: input.payout.livemode },
      // Nothing is written before the update answers (the API records that answer itself); a
      // continued run starts from a Payout its previous run had already projected.
      open: this.answered,
      projected: this.answered,
    });
  }

  get payout(): PayoutView {
    return this.projection.state;
  }

  get settings(): PayoutSettings {
    return this.input.settings;
  }

  /** Every change goes through here: new version, timestamps, the status search attribute, its event. */
  change(patch: Partial<PayoutView>): void {
    const current = this.payout;
    const next = { ...current, ...patch };
    if (next.status !== current.status) {
      next.updated_at = nowSeconds();
      if (isTerminalPayoutStatus(next.status)) next.completed_at = next.updated_at;
      upsertSearchAttributes([{ key: ObjectStatusKey, value: next.status }]);
    }
    this.projection.set(next);
    if (next.status !== current.status) this.queueEvent();
  }

  /** What a provider answer changes. An answer that proves nothing changes nothing (but when to look next). */
  outcome(answer: ProviderAnswer): Partial<PayoutView> {
    switch (answer.kind) {
      case 'processing':
        return this.payout.status === 'PENDING' ? { status: 'PROCESSING' } : {};
      case 'succeeded':
        return { status: 'SUCCEEDED' };
      case 'failed':
        return { status: 'FAILED', failure_code: answer.failureCode, failure_message: failureMessage(answer.failureCode) };
      case 'unanswered':
      case 'not_found':
        return {};
    }
  }

  /** The update may answer now; the read model and the events follow from here. */
  answerSubmit(): void {
    if (this.payout.status === 'PENDING') this.queueEvent(); // an answer that proves nothing, or none yet: payout.pending
    this.answered = true;
    this.projection.open();
  }

  submissionInput(): SubmitPayoutInput {
    const { id, livemode, amount, currency, recipient } = this.payout;
    return { payoutId: id, livemode, cardToken: this.input.cardToken, amount, currency, recipient };
  }

  /** What a run continued as new starts from: submitted, resolving from where this one polled. */
  continued(): PayoutWorkflowInput {
    return { ...this.input, payout: this.payout, resolving: this.poll };
  }

  private queueEvent(): void {
    this.projection.queueEvent({ kind: 'payout', payout: this.payout }, this.payout.status);
  }
}
