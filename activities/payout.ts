// Activities of the PayoutWorkflow: the provider submission and look-up, the read-model projection,
// and shredding the destination card. The provider idempotency key is derived from the payout id
// (`po_x:payout`), so a resubmission, or a retried activity, can never pay out twice.
import { ApplicationFailure } from '@temporalio/activity';
import type { PayoutRecipient, PayoutView } from '../src/domain/payout';
import type { LookupResult, PayoutResult } from '../src/provider/types';
import { recordPayoutProjection } from '../src/read-models/payouts';
import { providerFor, type ActivityDeps } from './deps';

export interface SubmitPayoutInput {
  payoutId: string;
  livemode: boolean;
  /** Vault token of the destination card; the number itself never enters the workflow. */
  cardToken: string;
  amount: number;
  currency: string;
  recipient: PayoutRecipient;
}

export function payoutIdempotencyKey(payoutId: string): string {
  return `${payoutId}:payout`;
}

export function createPayoutActivities(deps: ActivityDeps) {
  return {
    async submitPayout(input: SubmitPayoutInput): Promise<PayoutResult> {
      const card = await deps.vault.reveal(input.cardToken);
      if (!card) throw ApplicationFailure.nonRetryable('destination card not found in the vault', 'CardTokenMissing');
      return providerFor(deps, input.livemode).payout({
        idempotencyKey: payoutIdempotencyKey(input.payoutId),
        reference: input.payoutId,
        amount: input.amount,
        currency: input.currency,
        cardNumber: card.number,
        recipient: input.recipient,
      });
    },

    /** Asks the provider what became of the submission; never submits. */
    async pollPayoutStatus(input: { payoutId: string; livemode: boolean }): Promise<LookupResult<PayoutResult>> {
      return providerFor(deps, input.livemode).getPayoutByKey(payoutIdempotencyKey(input.payoutId));
    },

    async recordPayout(payout: PayoutView): Promise<void> {
      await recordPayoutProjection(deps.dataSource, payout);
    },

    async shredPayoutCard(token: string): Promise<void> {
      await deps.vault.shred(token);
    },
  };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
