// Creating Payments: the business rules of a create, then the PaymentWorkflow via Update-with-Start.
import type { Client } from '@temporalio/client';
import { scopeOf, type AuthContext, type Deps } from './context';
import type { Config } from '../config';
import { cardExpired, maskedCard } from '../domain/cards';
import { ApiError } from '../domain/errors';
import { randomBase62 } from '../domain/ids';
import { newPayment, type BillingDetails, type CardSummary, type IntegrationType, type PaymentView } from '../domain/payment';
import { findPayment, listPayments, recordPaymentProjection, type PaymentListQuery } from '../read-models/payments';
import type { Unanswered } from '../provider/types';
import { executeUpdate, executeUpdateWithStart, WorkflowClosedError } from '../temporal/calls';
import { searchAttributesFor } from '../../contracts/search-attributes';
import {
  createUpdate, paymentWorkflow, providerEventUpdate, type CreateOutcome, type PaymentSettings, type PaymentWorkflowInput,
} from '../../contracts/payment';
import { assertProvisioned, enabledCurrency } from './merchant-rules';

export interface NewPayment {
  integrationType: IntegrationType;
  amount: number;
  currency: string;
  merchantReference: number | null;
  description: string | null;
  billingDetails: BillingDetails | null;
  /** Shape B has no `customer_ip_address`, and a Shape B Direct payment no return URL. */
  customerIpAddress: string | null;
  merchantCustomerId: string | null;
  returnUrl: string | null;
  card?: { number: string; exp_month: number; exp_year: number; cvc: string; holder_name?: string | null };
  metadata?: Record<string, string> | null;
  customer?: Record<string, string | null> | null;
  callbackUrl?: string | null;
  /** The Service-Version of the creating request. */
  apiVersion?: string;
  /** Shape B Direct has no customer step: a card that needs 3D Secure is declined instead. */
  declineIfActionRequired?: boolean;
}

export function paymentSettings(config: Config, paymentId: string): PaymentSettings {
  return {
    actionTtlSeconds: config.paymentActionTtlSeconds,
    abandonAfterSeconds: config.paymentActionTtlSeconds,
    refundWindowSeconds: config.refundWindowSeconds,
    refundsPerRun: config.refundsPerRun,
    notifyUrl: `${config.internalBaseUrl ?? config.publicBaseUrl}/internal/provider/notifications`,
    authenticationReturnUrl: `${config.publicBaseUrl}/checkout/return/${paymentId}`,
    pollIntervalSeconds: config.providerPollInitialSeconds,
    maxPollIntervalSeconds: config.providerPollMaxSeconds,
    pollsPerRun: config.providerPollsPerRun,
  };
}

export function hostedPageUrl(config: Config, token: string): string {
  return `${config.publicBaseUrl}/checkout/${token}`;
}

export class PaymentService {
  constructor(private readonly deps: Deps) {}

  private get temporal(): Client {
    return this.deps.temporal;
  }

  /** A Payment of the caller's account and mode, from the read model: reading never advances it. */
  find(auth: AuthContext, paymentId: string): Promise<PaymentView | null> {
    return findPayment(this.deps.dataSource, this.deps.secretBox, scopeOf(auth), paymentId);
  }

  /** A page of the caller's Payments, newest first. */
  list(auth: AuthContext, query: PaymentListQuery) {
    return listPayments(this.deps.dataSource, this.deps.secretBox, scopeOf(auth), query);
  }

  /**
   * The provider notified us that an authentication step of this Payment changed: its workflow reads
   * the provider's state. A closed workflow has a final Payment (or none): nothing is left to move.
   */
  async providerEvent(paymentId: string): Promise<void> {
    try {
      await executeUpdate(this.temporal, this.deps.config.workflowUpdateTimeoutMs, paymentId, providerEventUpdate);
    } catch (error) {
      if (!(error instanceof WorkflowClosedError)) throw error;
    }
  }

  /** Creates (or, on a same-key retry, continues) the Payment bound to `paymentId`. */
  async create(auth: AuthContext, request: NewPayment, paymentId: string, retry: boolean): Promise<PaymentView> {
    const { config } = this.deps;
    assertProvisioned(auth, config);
    const currency = enabledCurrency(auth, request.currency);
    const scope = scopeOf(auth);
    if (retry) {
      // An earlier attempt may have finished the Payment before it could save its answer.
      const existing = await findPayment(this.deps.dataSource, this.deps.secretBox, scope, paymentId);
      if (existing) return existing;
    }

    let cardToken: string | null = null;
    let card: CardSummary | null = null;
    let expired = false;
    if (request.card) {
      cardToken = await this.deps.vault.tokenize(auth.merchant.id, request.card, `tok_${paymentId.slice(4)}`);
      card = {
        ...maskedCard(request.card.number),
        exp_month: request.card.exp_month,
        exp_year: request.card.exp_year,
        cardholder_name: request.card.holder_name ?? null,
        country: null,
      };
      expired = cardExpired(request.card.exp_month, request.card.exp_year, new Date());
    }
    const hostedToken = request.integrationType === 'HOSTED_PAYMENT_PAGE' ? randomBase62(32) : null;
    const pageUrl = hostedToken ? hostedPageUrl(config, hostedToken) : null;
    const payment = newPayment({
      id: paymentId,
      merchant_id: auth.merchant.id,
      livemode: auth.livemode,
      amount: request.amount,
      currency,
      integration_type: request.integrationType,
      merchant_reference: request.merchantReference,
      description: request.description,
      card,
      billing_details: request.billingDetails,
      next_action: pageUrl ? { reason: 'hosted_payment_page', redirect_url: pageUrl } : null,
      return_url: request.returnUrl,
      customer_ip_address: request.customerIpAddress,
      merchant_customer_id: request.merchantCustomerId,
      metadata: request.metadata ?? null,
      customer: request.customer ?? null,
      callback_url: request.callbackUrl ?? null,
      hosted_token: hostedToken,
      hosted_page_url: pageUrl,
      api_version: request.apiVersion ?? null,
    }, Math.floor(Date.now() / 1000));
    const input: PaymentWorkflowInput = {
      payment, cardToken, cardExpired: expired, settings: paymentSettings(config, paymentId),
      ...(request.declineIfActionRequired ? { declineIfActionRequired: true } : {}),
    };
    let outcome: CreateOutcome;
    try {
      outcome = await executeUpdateWithStart(this.temporal, config.workflowUpdateTimeoutMs, createUpdate, {
        workflow: paymentWorkflow,
        workflowId: paymentId,
        taskQueue: config.taskQueue,
        args: [input],
        searchAttributes: searchAttributesFor({ objectType: 'payment', merchantId: auth.merchant.id, livemode: auth.livemode, amount: request.amount, currency, status: 'PENDING' }),
        summary: `${auth.merchant.name}: ${request.amount} ${currency} (${request.integrationType})`,
      });
    } catch (error) {
      if (error instanceof WorkflowClosedError) {
        const existing = await findPayment(this.deps.dataSource, this.deps.secretBox, scope, paymentId);
        if (existing) return existing;
        throw new ApiError('service_unavailable');
      }
      throw error;
    }
    if (outcome.kind === 'unanswered') {
      const error = unansweredCreateError(outcome);
      this.deps.metrics.workflowOutcomes.inc({ workflow: paymentWorkflow.name, status: error.code });
      throw error;
    }
    this.deps.metrics.workflowOutcomes.inc({ workflow: paymentWorkflow.name, status: outcome.payment.status });
    // Read-your-writes without waiting for the workflow's projector: the update's answer is
    // persisted workflow state, and the versioned upsert lets the projector's own write of this
    // or a later version land in any order.
    await recordPaymentProjection(this.deps.dataSource, this.deps.secretBox, outcome.payment, { likelyNew: true });
    return outcome.payment;
  }
}

/**
 * How the API answers a create the provider left unanswered: 429 with the provider's Retry-After,
 * 503 when the provider was unavailable (or the service could not ask it), and 502 when its answer,
 * or the lack of one, could not be validated. Nothing was registered; the merchant retries with the
 * same key.
 */
export function unansweredCreateError(unanswered: Unanswered): ApiError {
  const { retryAfterSeconds } = unanswered;
  switch (unanswered.cause) {
    case 'rate_limited':
      return new ApiError('rate_limit_exceeded', { retryAfterSeconds });
    case 'unavailable':
    case 'not_sent':
    case 'call_failed':
      return new ApiError('service_unavailable', { retryAfterSeconds });
    case 'timeout':
    case 'connection_lost':
    case 'invalid_answer':
      return new ApiError('processing_error');
  }
}
