// The PaymentWorkflow's contract: its input, every update, signal and query with their argument and
// result types. The API's services and the RefundWorkflow (which reports through
// `refundProgressSignal`) call the Payment through these definitions only.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PaymentView, RefundView } from '../src/domain/payment';
import type { Unanswered } from '../src/provider/types';
import type { RefundProgress } from './refund';
import type { WorkflowType } from './workflow-type';

export interface PaymentSettings {
  actionTtlSeconds: number;
  /** A create that never got a provider answer (429/502/503 and no retry) is dropped after this. */
  abandonAfterSeconds: number;
  refundWindowSeconds: number;
  /** The run continues as new after this many refunds (or once it has put about 4 MB in history). */
  refundsPerRun: number;
  /** Provider notifications about authentication steps are POSTed here. */
  notifyUrl: string;
  /** Where the 3DS page sends the browser; the service forwards it to the merchant. */
  authenticationReturnUrl: string;
  pollIntervalSeconds: number;
  maxPollIntervalSeconds: number;
  /** Provider calls per run of a refund's RefundWorkflow (absent in Payments started before it was a setting). */
  pollsPerRun?: number;
}

export interface PaymentWorkflowInput {
  payment: PaymentView;
  /** Vault token of the card (Direct). The card itself never enters the workflow. */
  cardToken: string | null;
  cardExpired: boolean;
  settings: PaymentSettings;
  /** Shape B Direct: no customer step, so an authorization that asks for 3D Secure is a decline. */
  declineIfActionRequired?: boolean;
  /** Carried across continue-as-new. */
  carried?: { created: boolean; providerId: string | null; settleAt: number | null };
}

export type PaymentWorkflowFn = (input: PaymentWorkflowInput) => Promise<PaymentView>;
export const paymentWorkflow: WorkflowType<PaymentWorkflowFn> = { name: 'PaymentWorkflow' };

/**
 * What a create (or a hosted page's card) comes to: the Payment, registered, or the provider's
 * non-answer, which registers nothing (the API answers 429, 502 or 503).
 */
export type CreateOutcome = { kind: 'payment'; payment: PaymentView } | Unanswered;

export interface HostedCardSubmission {
  cardToken: string;
  card: NonNullable<PaymentView['card']>;
  cardExpired: boolean;
}

/**
 * The `refund` validator's answer while the run is about to continue as new: nothing was taken, and
 * the same update sent once that run has ended goes to the next run. Its one detail is the run's id,
 * so that the caller can wait for that run to end (src/temporal/calls.ts) instead of sending the
 * update again and again: each rejection is a workflow task of the same Payment, which the run's
 * own last tasks would queue behind.
 */
export const TRY_AGAIN_SHORTLY = 'try_again_shortly';

export interface RefundCommand {
  refundId: string;
  amount: number;
  /**
   * Refund whatever remains when the workflow takes the command (Shape B's full refund); `amount`
   * is then only the caller's last read of it. A refund another request reserved in between
   * shrinks this one instead of failing it.
   */
  remaining?: boolean;
  reason: string;
  merchantReference: number | null;
}

/** Registers the Payment and, for Direct payments, authenticates the card with the provider. */
export const createUpdate = defineUpdate<CreateOutcome, []>('create');
/** The shopper submitted the hosted payment page. */
export const submitHostedCardUpdate = defineUpdate<CreateOutcome, [HostedCardSubmission]>('submitHostedCard');
/** The provider told us an authentication step changed; the workflow reads the authoritative state. */
export const providerEventUpdate = defineUpdate<PaymentView, []>('providerEvent');
/**
 * What a refund comes to once the provider has answered its submission (or left it unanswered:
 * PROCESSING): the Refund, and the Payment that shows it, which the API projects before answering.
 */
export interface RefundOutcome {
  refund: RefundView;
  /**
   * The Payment as this answer leaves it, with only the refunds its read model may not show yet in
   * `refunds` (this one among them): every answer goes into history, and a Payment refunded
   * hundreds of times would otherwise repeat all of them.
   */
  payment: PaymentView;
}

/** Reserves the amount, submits the refund and starts its RefundWorkflow; answers with the submission's outcome. */
export const refundUpdate = defineUpdate<RefundOutcome, [RefundCommand]>('refund');
/** Shape B answers with the outcome: resolves once the Payment is past PENDING/PROCESSING and projected. */
export const settledUpdate = defineUpdate<PaymentView, []>('settled');
/** The RefundWorkflow's reports on its refund. */
export const refundProgressSignal = defineSignal<[RefundProgress]>('refundProgress');
/**
 * An operator's: starts the Payment's projector again if it stopped while the run goes on (a run
 * started before the `projector-waits-again` patch, docs/operations.md). Harmless otherwise.
 */
export const resumeProjectionSignal = defineSignal('resumeProjection');
export const paymentQuery = defineQuery<PaymentView>('payment');
