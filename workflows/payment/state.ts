// The state of one PaymentWorkflow run: the Payment (through its projection), what the workflow
// knows of its authorization, and the few operations every phase and handler uses.
import { allHandlersFinished, CancellationScope, condition, patched, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { failureMessage, type FailureCode } from '../../src/domain/failure-codes';
import { canTransition, emptyTransitions, refundsMovedSince, stampTransition, type PaymentView } from '../../src/domain/payment';
import { amountRefundable, amountRefunded, holdsAmount } from '../../src/domain/refunds';
import type { AuthorizationAnswer, ProviderCardSummary } from '../../src/provider/types';
import { ObjectStatusKey } from '../../contracts/search-attributes';
import type { PaymentSettings, PaymentWorkflowInput, RefundOutcome } from '../../contracts/payment';
import { nowSeconds, objectInputBytes, Projection } from '../projection';

/**
 * A run continues as new once it has put about this much in history by its own count (historyBytes),
 * far below the server's 10 MB warning: a hot Payment's refunds may take a few hundred kilobytes a
 * second, and the run takes more while it waits for a quiet moment to continue.
 */
const HISTORY_BYTES_PER_RUN = 4 * 1024 * 1024;

/**
 * What a refund puts in history besides its answer and change records: the update's acceptance, the
 * submission activity, workflow tasks, the RefundWorkflow's reports (measured: 4-6 KB).
 */
const HISTORY_BYTES_PER_REFUND = 6_000;

/** How long the projector waits at most for refund submissions' answers. */
const HOLD_PROJECTION_MS = 250;

/**
 * The projector's hold ends on a timer, not on the clock read inside its `condition()`: a workflow
 * task that history does not keep (a refund update the validator rejected) re-evaluates conditions
 * at its own time, and a hold ending there scheduled an activity that replay found no cause for.
 */
const HOLD_ENDS_ON_TIMER_PATCH = 'hold-ends-on-timer';

/** Statuses that complete a Payment for its Shape B `callback_url`. */
const COMPLETED: readonly PaymentView['status'][] = ['SUCCEEDED', 'FAILED', 'EXPIRED'];

export class PaymentState {
  readonly projection: Projection<PaymentView>;
  /** The create was answered: the Payment is registered, and its read model written. */
  created: boolean;
  /** The provider's authorization, once it answered. */
  providerId: string | null;
  /** When a PROCESSING authorization settles, as the provider said (ms); null: look with backoff. */
  settleAt: number | null;
  /** An attempt got no answer and the provider may have acted: it may hold an authorization under the Payment's key. */
  providerMayHoldAuthorization = false;
  /** Refund submissions with the provider, and since when one has been out (ms, workflow time). */
  private submitting = 0;
  private submittingSince = 0;
  /** The timer that ends the projector's hold on those submissions (HOLD_ENDS_ON_TIMER_PATCH). */
  private holdTimer: { scope: CancellationScope; over: boolean } | null = null;
  /** Refunds this run took: the run continues as new after `settings.refundsPerRun`. */
  refundsThisRun = 0;
  /** About how many bytes this run's refund answers put in history. */
  private answeredBytes = 0;
  /** A handler or phase holds the Payment (`exclusive`). */
  private busy = false;

  constructor(readonly input: PaymentWorkflowInput) {
    this.created = input.carried?.created ?? false;
    this.providerId = input.carried?.providerId ?? null;
    this.settleAt = input.carried?.settleAt ?? null;
    this.projection = new Projection(input.payment, {
      // Only the refunds that moved: history would otherwise hold every refund once per change.
      record: (payment, projected) => ({ kind: 'payment', payment: { ...payment, refunds: refundsMovedSince(payment.refunds, projected?.refunds ?? []) } }),
      owner: { merchantId: input.payment.merchant_id, livemode: input.payment.livemode },
      open: this.created,
      projected: this.created,
      // The projector waits for a submission's answer rather than write the PENDING refund it
      // replaces, but not for long: on a hot Payment submissions may overlap without a gap.
      held: () => this.held(),
    });
  }

  get payment(): PaymentView {
    return this.projection.state;
  }

  get settings(): PaymentSettings {
    return this.input.settings;
  }

  /** A refund submission goes to the provider: the first of a burst holds the projector for a while. */
  beginSubmission(): void {
    this.submitting += 1;
    if (this.submitting > 1) return;
    this.submittingSince = Date.now();
    if (!patched(HOLD_ENDS_ON_TIMER_PATCH)) return;
    const timer = { scope: new CancellationScope(), over: false };
    this.holdTimer = timer;
    timer.scope.run(() => sleep(HOLD_PROJECTION_MS)).then(() => { timer.over = true; }, () => {});
  }

  /** A submission was answered: the last one out ends the hold. */
  endSubmission(): void {
    this.submitting -= 1;
    if (this.submitting > 0) return;
    this.holdTimer?.scope.cancel();
    this.holdTimer = null;
  }

  /** The projector waits for submissions' answers rather than write the PENDING refunds they replace. */
  private held(): boolean {
    if (this.submitting === 0) return false;
    // Runs that began a burst before the patch end its hold on the clock, as they were recorded.
    return this.holdTimer ? !this.holdTimer.over : Date.now() - this.submittingSince < HOLD_PROJECTION_MS;
  }

  /** Every change goes through here: transition stamps, balance, search attributes, events. */
  change(patch: Partial<PaymentView>): void {
    const current = this.payment;
    const moves = patch.status !== undefined && patch.status !== current.status;
    // A late provider answer (say, a 3DS completion after expiry) never moves a Payment backwards.
    if (moves && !canTransition(current.status, patch.status!)) return;
    const now = nowSeconds();
    const next = { ...current, ...patch };
    if (moves) {
      next.status_transitions = stampTransition(next.status_transitions ?? emptyTransitions(), next.status, now);
      upsertSearchAttributes([{ key: ObjectStatusKey, value: next.status }]);
    }
    next.amount_refunded = amountRefunded(next.amount, next.refunds);
    next.amount_refundable = amountRefundable(next.status, next.amount, next.refunds);
    next.refunded_at = fullyRefunded(next) ? (next.refunded_at ?? now) : null;
    next.updated_at = now;
    this.projection.set(next);
    if (!moves) return;
    const payment = this.payment;
    this.projection.queueEvent({ kind: 'payment', payment }, payment.status);
    // A Shape B `callback_url` gets the Payment once it completes, through the same outbox and delivery.
    if (payment.callback_url && COMPLETED.includes(payment.status)) {
      this.projection.queueEvent({ kind: 'payment', payment }, payment.status, payment.callback_url);
    }
  }

  fail(code: FailureCode, card = this.payment.card): void {
    this.change({ status: 'FAILED', card, failure_code: code, failure_message: failureMessage(code), next_action: null });
  }

  /** What the provider's answer on the authorization makes of the Payment. */
  apply(answer: AuthorizationAnswer): void {
    this.providerId = answer.providerId;
    const card = mergeCard(this.payment.card, answer.card);
    switch (answer.kind) {
      case 'processing':
        this.settleAt = answer.settleAt;
        this.change({ status: 'PROCESSING', card, next_action: null });
        break;
      case 'succeeded':
        this.change({ status: 'SUCCEEDED', card, next_action: null });
        break;
      case 'declined':
        this.fail(answer.failureCode, card);
        break;
      case 'requires_action':
        if (this.input.declineIfActionRequired) this.fail('generic_decline', card);
        else this.change({ status: 'REQUIRES_ACTION', card, next_action: { reason: 'three_d_secure', redirect_url: answer.redirectUrl } });
        break;
    }
  }

  /** The create was answered: from now on the Payment has a read model. */
  markCreated(): void {
    this.created = true;
    this.projection.open();
  }

  /** Updates other than `create` wait for the Payment to be registered. */
  assertCreated(): void {
    if (!this.created) throw new Error('payment not created yet');
  }

  /** One handler or phase at a time works on the Payment across its awaits. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    // Handlers that start in one activation all wake from the same wait, so taking the lock must be
    // a check and a set with no await between them.
    while (this.busy) await condition(() => !this.busy);
    this.busy = true;
    try {
      return await fn();
    } finally {
      this.busy = false;
    }
  }

  /**
   * The run has taken enough: it continues as new once quiet. Decided from the run's own counts,
   * not from the server's continue-as-new hint: the hint belongs to a workflow task, and a hot
   * Payment's run replayed from history failed as nondeterministic (a timer cancelled at another
   * point) where the hint had turned it to continuing.
   */
  rollOverDue(): boolean {
    return this.refundsThisRun >= this.settings.refundsPerRun || this.historyBytes() >= HISTORY_BYTES_PER_RUN;
  }

  /** About how many bytes this run has put in history: its change records, its refunds and their answers. */
  historyBytes(): number {
    return this.projection.inputBytes() + this.answeredBytes + this.refundsThisRun * HISTORY_BYTES_PER_REFUND;
  }

  /** A refund's answer, counted: it carries the Payment and the refunds the read model may not show yet. */
  answered(outcome: RefundOutcome): RefundOutcome {
    this.answeredBytes += objectInputBytes({ kind: 'payment', payment: { ...outcome.payment, refunds: [...outcome.payment.refunds, outcome.refund] } });
    return outcome;
  }

  /** Nothing in flight: no handler, nothing waiting to be projected, published, shredded or started. */
  quiet(): boolean {
    return !this.busy && this.projection.idle() && allHandlersFinished();
  }

  /** What a run continued as new starts from. */
  continued(): PaymentWorkflowInput {
    return { ...this.input, payment: this.payment, cardToken: null, carried: { created: this.created, providerId: this.providerId, settleAt: this.settleAt } };
  }
}

function mergeCard(known: PaymentView['card'], fromProvider: ProviderCardSummary): PaymentView['card'] {
  if (!known) return null;
  return { ...known, brand: fromProvider.brand ?? known.brand, country: fromProvider.country ?? known.country };
}

function fullyRefunded(payment: PaymentView): boolean {
  const covered = payment.refunds.filter(holdsAmount).reduce((sum, r) => sum + r.amount, 0);
  return payment.status === 'SUCCEEDED' && covered >= payment.amount;
}
