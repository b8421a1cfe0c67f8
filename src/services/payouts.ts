// Submitting Payouts: the business rules of a submission, then the PayoutWorkflow via
// Update-with-Start. The destination card is vaulted here; only its token enters Temporal.
import type { Config } from '../config';
import { scopeOf, type AuthContext, type Deps } from './context';
import { ApiError } from '../domain/errors';
import { payoutCreateIdentity, type PayoutRequest, type RequestIdentity } from '../domain/idempotency';
import { canonicalIp } from '../domain/ip';
import { checkDestinationCard, destinationCountry, isTerminalPayoutStatus, newPayout, type PayoutView } from '../domain/payout';
import { findPayout, listPayouts, recordPayoutProjection, type PayoutListQuery } from '../read-models/payouts';
import { executeUpdateWithStart, WorkflowClosedError } from '../temporal/calls';
import { PollAttemptsKey, searchAttributesFor } from '../../contracts/search-attributes';
import { payoutWorkflow, submitPayoutUpdate, type PayoutSettings, type PayoutWorkflowInput } from '../../contracts/payout';
import { assertProvisioned, enabledCurrency } from './merchant-rules';

export interface NewPayout {
  amount: number;
  currency: string;
  initiatorIpAddress: string;
  recipient: { first_name: string; last_name: string; country: string };
  cardNumber: string;
  merchantReference: number | null;
}

/** The first answer waits `payoutAnswerWithinMs` for the provider; look-ups back off; no completion deadline. */
export function payoutSettings(config: Config): PayoutSettings {
  return {
    initialSeconds: config.providerPollInitialSeconds,
    maxSeconds: config.providerPollMaxSeconds,
    pollsPerRun: config.providerPollsPerRun,
    answerWithinMs: config.payoutAnswerWithinMs,
  };
}

export type { PayoutListQuery };

export class PayoutService {
  constructor(private readonly deps: Deps) {}

  /** A submission's idempotency identity: its destination card enters keyed with the vault key. */
  identity(request: PayoutRequest): RequestIdentity {
    return payoutCreateIdentity(this.deps.config.vaultKeyHex, request);
  }

  /** A Payout of the caller's account and mode, from the read model: reading never advances it. */
  find(auth: AuthContext, payoutId: string): Promise<PayoutView | null> {
    return findPayout(this.deps.dataSource, scopeOf(auth), payoutId);
  }

  /** A page of the caller's Payouts, newest first, with the total count of the filtered list. */
  list(auth: AuthContext, query: PayoutListQuery) {
    return listPayouts(this.deps.dataSource, scopeOf(auth), query);
  }

  /** Submits (or, on a same-key retry, continues) the Payout bound to `payoutId`. */
  async submit(auth: AuthContext, request: NewPayout, payoutId: string, retry: boolean): Promise<PayoutView> {
    const { config, dataSource, vault } = this.deps;
    assertProvisioned(auth, config);
    const currency = enabledCurrency(auth, request.currency);
    const destination = checkDestinationCard(request.cardNumber, auth.livemode);
    if (!destination.ok) throw new ApiError(destination.code, { param: 'destination.card_number', message: destination.message });

    const scope = scopeOf(auth);
    if (retry) {
      // A finished Payout has no workflow left to ask; a running one answers through its update.
      const existing = await findPayout(dataSource, scope, payoutId);
      if (existing && isTerminalPayoutStatus(existing.status)) return existing;
    }

    // Bound to the payout id: a retry finds the card it sealed the first time.
    const cardToken = await vault.tokenize(auth.merchant.id, { number: request.cardNumber }, `tok_${payoutId.slice('po_'.length)}`);
    const payout = newPayout({
      id: payoutId,
      merchant_id: auth.merchant.id,
      livemode: auth.livemode,
      amount: request.amount,
      currency,
      merchant_reference: request.merchantReference,
      recipient: { ...request.recipient, country: request.recipient.country.toUpperCase() },
      destination: { brand: destination.brand, last4: destination.last4, country: destinationCountry(auth.livemode) },
      initiator_ip_address: canonicalIp(request.initiatorIpAddress),
    }, Math.floor(Date.now() / 1000));
    const input: PayoutWorkflowInput = { payout, cardToken, settings: payoutSettings(config) };
    let answer: PayoutView;
    try {
      answer = await executeUpdateWithStart(this.deps.temporal, config.workflowUpdateTimeoutMs, submitPayoutUpdate, {
        workflow: payoutWorkflow,
        workflowId: payoutId,
        taskQueue: config.taskQueue,
        args: [input],
        searchAttributes: searchAttributesFor({
          objectType: 'payout', merchantId: auth.merchant.id, livemode: auth.livemode, amount: request.amount, currency, status: 'PENDING',
        }).updateCopy([{ key: PollAttemptsKey, value: 0 }]),
        summary: `${auth.merchant.name}: payout of ${request.amount} ${currency}`,
      });
    } catch (error) {
      if (!(error instanceof WorkflowClosedError)) throw error;
      // The workflow finished meanwhile: the read model has the outcome, and the card must not stay.
      const existing = await findPayout(dataSource, scope, payoutId);
      if (existing && isTerminalPayoutStatus(existing.status)) {
        await vault.shred(cardToken);
        return existing;
      }
      throw new ApiError('service_unavailable');
    }
    // Read-your-writes without waiting for the workflow's projector: the update's answer is
    // persisted workflow state, and the versioned write lets the projector's own write of this or
    // a later version land in any order.
    await recordPayoutProjection(dataSource, answer, { likelyNew: true });
    return answer;
  }
}
