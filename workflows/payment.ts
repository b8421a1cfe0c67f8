// PaymentWorkflow: one per Payment (workflow id = payment id). It is the single writer of its
// Payment: authentication with the provider, the 3D Secure redirect loop, expiry, settlement, and
// afterwards the refundable balance, which it guards for the refund window. Deterministic: it
// imports only @temporalio/workflow, activity types and pure domain modules.
import {
  ApplicationFailure, ParentClosePolicy, allHandlersFinished, condition, continueAsNew, defineQuery, defineSignal,
  defineUpdate, patched, proxyActivities, proxyLocalActivities, setHandler, sleep, startChild, upsertSearchAttributes,
  uuid4, workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { PaymentActivities } from '../activities/payment';
import { BACKGROUND_ACTIVITY_OPTIONS } from './activity-options';
import type { PendingEvent, WebhookActivities } from '../activities/webhooks';
import { eventIdFromUuid, eventTypeFor } from '../src/webhooks/event-types';
import { failureMessage, type FailureCode } from '../src/domain/failure-codes';
import { canTransition, emptyTransitions, stampTransition, type PaymentView, type RefundView } from '../src/domain/payment';
import { amountRefundable, amountRefunded, checkRefund } from '../src/domain/refunds';
import { isDefiniteAuthorization, type AuthorizationResult, type ProviderCardSummary } from '../src/provider/types';
import { ObjectStatusKey, searchAttributesFor } from '../src/temporal/search-attributes';
import { RefundWorkflow, type RefundProgress } from './refund';

export interface PaymentSettings {
  actionTtlSeconds: number;
  /** A create that never got a provider answer (429/502/503 and no retry) is dropped after this. */
  abandonAfterSeconds: number;
  refundWindowSeconds: number;
  /** Provider notifications about authentication steps are POSTed here. */
  notifyUrl: string;
  /** Where the 3DS page sends the browser; the service forwards it to the merchant. */
  authenticationReturnUrl: string;
  pollIntervalSeconds: number;
  maxPollIntervalSeconds: number;
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

export type CreateOutcome =
  | { ok: true; payment: PaymentView }
  | { ok: false; reason: 'rate_limited' | 'unverifiable' | 'unavailable'; retryAfterSeconds: number | null };

export interface HostedCardSubmission {
  cardToken: string;
  card: NonNullable<PaymentView['card']>;
  cardExpired: boolean;
}

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
/** The provider told us an authentication step changed; we read the authoritative state. */
export const providerEventUpdate = defineUpdate<PaymentView, []>('providerEvent');
export const refundUpdate = defineUpdate<RefundView, [RefundCommand]>('refund');
/** Shape B answers with the outcome: resolves once the Payment is past PENDING/PROCESSING and projected. */
export const settledUpdate = defineUpdate<PaymentView, []>('settled');
export const refundProgressSignal = defineSignal<[RefundProgress]>('refundProgress');
export const paymentQuery = defineQuery<PaymentView>('payment');

const SYNC_OPTIONS = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 },
} as const;

const provider = proxyActivities<PaymentActivities>(SYNC_OPTIONS);
/**
 * The authorization of a create runs as a local activity: inside the workflow task that answers the
 * update, so a create costs one workflow task instead of two and an activity task. If that task is
 * lost, the authorization runs again with the same provider idempotency key and gets the same
 * answer; that is why it leaves the card in the vault until its answer is in history.
 */
const localProvider = proxyLocalActivities<PaymentActivities>(SYNC_OPTIONS);
const LOCAL_AUTHORIZATION_PATCH = 'local-authorization';
const events = proxyActivities<WebhookActivities>(BACKGROUND_ACTIVITY_OPTIONS);
const store = proxyActivities<PaymentActivities>(BACKGROUND_ACTIVITY_OPTIONS);
// Runs recorded between these two patches projected through a local activity, which ran inside
// the workflow task that changed the Payment. That task's changes can still be discarded (a
// speculative task for an update that the server drops, a task that fails), while the local
// activity has already written them: the read model then showed refunds that never happened.
// A regular activity is scheduled only by a persisted task, so it can only project real state.
const localStore = proxyLocalActivities<PaymentActivities>(BACKGROUND_ACTIVITY_OPTIONS);
const LOCAL_PROJECTION_PATCH = 'local-projection';
const ACTIVITY_PROJECTION_PATCH = 'activity-projection';
/** Runs before this patch answered a create only after the projector had written it. */
const API_PROJECTS_CREATE_PATCH = 'api-projects-create';
/**
 * Runs before this patch projected, published events and shredded the card in separate activities
 * (each its own activity task and workflow task); now one `recordChange` activity does all three.
 */
const ONE_CHANGE_RECORD_PATCH = 'one-change-record';
/** Runs before this patch gave up on an unanswered create without asking the provider. */
const LOOKUP_BEFORE_GIVING_UP_PATCH = 'lookup-before-giving-up';
/** Runs before this patch stopped the projector before the last handlers finished (one could wait for ever). */
const HANDLERS_BEFORE_LAST_PROJECTION_PATCH = 'handlers-before-last-projection';
/** Runs before this patch could let two handlers that started together both pass `exclusive`. */
const ONE_HANDLER_AT_A_TIME_PATCH = 'one-handler-at-a-time';
/**
 * Runs before this patch authorized a hosted page's next card under the Payment's provider key even
 * when the provider might hold the previous card's authorization (an attempt that got no answer);
 * the provider then answered with that card's authorization. Asked only on that path, so it adds no
 * marker to other runs; not part of `earlier-patches`.
 */
const HOSTED_LOOKUP_BEFORE_NEXT_CARD_PATCH = 'hosted-lookup-before-next-card';
/**
 * Runs started since this patch take every patch above with this one marker. Each marker brings a
 * `TemporalChangeVersion` search-attribute upsert of its own (a history event and a visibility
 * write on the server): four in every create's first workflow task before, one now. Runs started
 * before it still ask for each patch. A later patch keeps its own marker, or moves this one on.
 */
const EARLIER_PATCHES_PATCH = 'earlier-patches';

const ACTIVE_REFUND = (r: RefundView) => r.status === 'PENDING' || r.status === 'PROCESSING';
/** Statuses that complete a Payment for its Shape B `callback_url`. */
const COMPLETED: readonly PaymentView['status'][] = ['SUCCEEDED', 'FAILED', 'EXPIRED'];

export async function PaymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentView> {
  // First, so that a run started before the patch decides while it replays its first task.
  const startedWithEarlierPatches = patched(EARLIER_PATCHES_PATCH);
  const takes = (patchId: string) => startedWithEarlierPatches || patched(patchId);
  /** New runs project by activity; histories of the local-projection period replay as recorded. */
  const projectionStore = () => (takes(ACTIVITY_PROJECTION_PATCH) || !patched(LOCAL_PROJECTION_PATCH) ? store : localStore);
  const settings = input.settings;
  let payment: PaymentView = input.payment;
  let created = input.carried?.created ?? false;
  let providerId = input.carried?.providerId ?? null;
  let settleAt = input.carried?.settleAt ?? null;
  let cardToken = input.cardToken;
  let cardExpired = input.cardExpired;
  let busy = false;
  let projectedVersion = created ? payment.version : -1;
  let stopProjector = false;
  /** Cards kept in the vault by the local authorization, shredded with the next change record. */
  let cardsToShred: string[] = [];
  /** An authorization attempt got no answer that proves anything: the provider may hold it under the Payment's key. */
  let providerMayHoldAuthorization = false;

  const nowSeconds = () => Math.floor(Date.now() / 1000);

  /** Events wait here until the projection that shows them is written (an outbox). */
  let outbox: PendingEvent[] = [];

  function queueEvent(subject: PendingEvent['subject'], objectId: string, status: string): void {
    const type = eventTypeFor(subject.kind, status);
    if (!type) return;
    outbox.push({ id: eventIdFromUuid(uuid4()), type, merchantId: payment.merchant_id, livemode: payment.livemode, objectId, createdAt: nowSeconds(), subject });
  }

  /** A Shape B `callback_url` gets the Payment once it completes, through the same outbox and delivery. */
  function queueCallback(next: PaymentView): void {
    const type = eventTypeFor('payment', next.status);
    if (!next.callback_url || !type || !COMPLETED.includes(next.status)) return;
    outbox.push({
      id: eventIdFromUuid(uuid4()), type, merchantId: next.merchant_id, livemode: next.livemode, objectId: next.id, createdAt: nowSeconds(),
      subject: { kind: 'payment', payment: next }, callbackUrl: next.callback_url,
    });
  }

  /** Every change goes through here: new version, transition stamps, balance, search attributes. */
  function change(patch: Partial<PaymentView>): void {
    // A late provider answer (say, a 3DS completion after expiry) never moves a Payment backwards.
    if (patch.status !== undefined && patch.status !== payment.status && !canTransition(payment.status, patch.status)) return;
    const next = { ...payment, ...patch };
    const statusChanged = patch.status !== undefined && patch.status !== payment.status;
    if (patch.status && patch.status !== payment.status) {
      next.status_transitions = stampTransition(next.status_transitions ?? emptyTransitions(), patch.status, nowSeconds());
      upsertSearchAttributes([{ key: ObjectStatusKey, value: patch.status }]);
    }
    next.amount_refunded = amountRefunded(next.amount, next.refunds);
    next.amount_refundable = amountRefundable(next.status, next.amount, next.refunds);
    next.refunded_at = fullyRefunded(next) ? (next.refunded_at ?? nowSeconds()) : null;
    next.updated_at = nowSeconds();
    next.version = payment.version + 1;
    payment = next;
    if (statusChanged) {
      queueEvent({ kind: 'payment', payment: next }, next.id, next.status);
      queueCallback(next);
    }
  }

  /** Handlers waiting for the read model to show their change (a refund's answer, say). */
  let projectionWaiters = 0;
  /** Resolves once the read model shows at least the current version (read-your-writes for the API). */
  async function projected(): Promise<void> {
    const target = payment.version;
    projectionWaiters += 1;
    try {
      await condition(() => projectedVersion >= target);
    } finally {
      projectionWaiters -= 1;
    }
  }

  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (takes(ONE_HANDLER_AT_A_TIME_PATCH)) {
      // Handlers that start in one activation all wake from the same wait on `busy`, so taking
      // the lock must be a check and a set with no await between them.
      while (busy) await condition(() => !busy);
    } else {
      await condition(() => !busy);
    }
    busy = true;
    try {
      return await fn();
    } finally {
      busy = false;
    }
  }

  function applyAuthorization(result: Extract<AuthorizationResult, { providerId: string }>): void {
    providerId = result.providerId;
    const card = mergeCard(payment.card, result.card);
    switch (result.kind) {
      case 'processing':
        settleAt = result.settleAt;
        change({ status: 'PROCESSING', card, next_action: null });
        break;
      case 'succeeded':
        change({ status: 'SUCCEEDED', card, next_action: null });
        break;
      case 'declined':
        fail(result.failureCode, card);
        break;
      case 'requires_action':
        if (input.declineIfActionRequired) {
          fail('generic_decline', card);
          break;
        }
        change({ status: 'REQUIRES_ACTION', card, next_action: { reason: 'three_d_secure', redirect_url: result.redirectUrl } });
        break;
    }
  }

  function fail(code: FailureCode, card = payment.card): void {
    change({ status: 'FAILED', card, failure_code: code, failure_message: failureMessage(code), next_action: null });
  }

  /** Authenticates the vaulted card. Provider answers that prove nothing leave the Payment unregistered. */
  async function authenticate(token: string, expired: boolean): Promise<CreateOutcome> {
    if (expired) {
      await provider.shredCard(token);
      fail('expired_card');
      return { ok: true, payment };
    }
    let result: AuthorizationResult;
    const local = takes(LOCAL_AUTHORIZATION_PATCH);
    try {
      result = await (local ? localProvider : provider).authorizeCard({
        paymentId: payment.id,
        livemode: payment.livemode,
        cardToken: token,
        amount: payment.amount,
        currency: payment.currency,
        cardholderName: payment.card?.cardholder_name ?? null,
        expMonth: payment.card?.exp_month ?? 0,
        expYear: payment.card?.exp_year ?? 0,
        returnUrl: settings.authenticationReturnUrl,
        notifyUrl: settings.notifyUrl,
        ...(local ? { keepCard: true } : {}),
      });
    } catch {
      providerMayHoldAuthorization = true;
      return { ok: false, reason: 'unavailable', retryAfterSeconds: null };
    }
    if (result.kind === 'rate_limited' || result.kind === 'unavailable') {
      return { ok: false, reason: result.kind, retryAfterSeconds: result.retryAfterSeconds };
    }
    if (result.kind === 'unverifiable') {
      providerMayHoldAuthorization = true;
      return { ok: false, reason: 'unverifiable', retryAfterSeconds: null };
    }
    if (local && isDefiniteAuthorization(result)) cardsToShred.push(token);
    applyAuthorization(result);
    return { ok: true, payment };
  }

  /** Reads the provider's current answer for this authorization. */
  async function refreshFromProvider(): Promise<void> {
    if (!providerId) return;
    const result = await provider.getAuthorization({ providerId, livemode: payment.livemode });
    if (result.kind === 'not_found' || result.kind === 'uncertain') return;
    if (result.kind === 'rate_limited' || result.kind === 'unverifiable' || result.kind === 'unavailable') return;
    const unchanged = result.kind === 'requires_action' && payment.status === 'REQUIRES_ACTION'
      && payment.next_action?.redirect_url === result.redirectUrl;
    if (!unchanged && !(result.kind === 'processing' && payment.status === 'PROCESSING')) applyAuthorization(result);
    if (result.kind === 'processing') settleAt = result.settleAt;
  }

  setHandler(paymentQuery, () => payment);

  setHandler(createUpdate, async (): Promise<CreateOutcome> => {
    return exclusive(async () => {
      if (created) return { ok: true, payment };
      let outcome: CreateOutcome = { ok: true, payment };
      if (payment.integration_type === 'DIRECT') {
        if (!cardToken) throw ApplicationFailure.nonRetryable('direct payment without a card token');
        outcome = await authenticate(cardToken, cardExpired);
        if (!outcome.ok) return outcome;
      } else {
        change({ status: 'REQUIRES_ACTION' });
      }
      created = true;
      // The API projects the Payment this update returns (state the server has persisted by then),
      // so a create answers without waiting for the projector's activity and workflow task.
      if (!takes(API_PROJECTS_CREATE_PATCH)) await projected();
      return { ok: true, payment };
    });
  });

  setHandler(submitHostedCardUpdate, async (submission): Promise<CreateOutcome> => {
    return exclusive(async () => {
      if (payment.status !== 'REQUIRES_ACTION' || payment.next_action?.reason !== 'hosted_payment_page' || providerId) {
        await provider.shredCard(submission.cardToken);
        return { ok: true, payment };
      }
      if (providerMayHoldAuthorization && patched(HOSTED_LOOKUP_BEFORE_NEXT_CARD_PATCH)) {
        // Under the same key the provider would answer this card with the earlier card's
        // authorization: if it holds one, that is the Payment's, and this card is not used.
        const found = await store.findAuthorization({ paymentId: payment.id, livemode: payment.livemode });
        if (found && isDefiniteAuthorization(found)) {
          cardsToShred.push(submission.cardToken);
          applyAuthorization(found);
          await projected();
          return { ok: true, payment };
        }
        providerMayHoldAuthorization = false;
      }
      change({ card: submission.card });
      cardToken = submission.cardToken;
      cardExpired = submission.cardExpired;
      const outcome = await authenticate(submission.cardToken, submission.cardExpired);
      if (outcome.ok) await projected();
      return outcome.ok ? { ok: true, payment } : outcome;
    });
  }, {
    validator: (_submission) => {
      if (!created) throw new Error('payment not created yet');
    },
  });

  setHandler(providerEventUpdate, async () => {
    return exclusive(async () => {
      await refreshFromProvider();
      await projected();
      return payment;
    });
  });

  setHandler(settledUpdate, async () => {
    await condition(() => payment.status !== 'PENDING' && payment.status !== 'PROCESSING');
    await projected();
    return payment;
  }, {
    validator: () => {
      if (!created) throw new Error('payment not created yet');
    },
  });

  const refundById = (id: string) => payment.refunds.find((r) => r.id === id);

  /** The refund's own workflow; a start that already happened (same id) reports to us all the same. */
  async function startRefundWorkflow(refund: RefundView): Promise<void> {
    try {
      await startChild(RefundWorkflow, {
        workflowId: refund.id,
        args: [{
          refund,
          livemode: payment.livemode,
          merchantId: payment.merchant_id,
          paymentWorkflowId: payment.id,
          authorizationId: providerId ?? '',
          pollIntervalSeconds: settings.pollIntervalSeconds,
          maxPollIntervalSeconds: settings.maxPollIntervalSeconds,
        }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: refundSearchAttributes(payment, refund),
        memo: { summary: `refund of ${refund.amount} ${refund.currency} on ${payment.id}` },
        staticSummary: `refund of ${refund.amount} ${refund.currency} on ${payment.id}`,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  /** The amount a refund command asks for, on the current balance. */
  const requestedAmount = (command: RefundCommand) => (command.remaining ? amountRefundable(payment.status, payment.amount, payment.refunds) : command.amount);

  setHandler(refundUpdate, async (command): Promise<RefundView> => {
    const id = command.refundId;
    if (!refundById(id)) {
      // The validator passed on this very state; checking again keeps the ledger sound even if
      // another handler ever ran in between.
      const amount = requestedAmount(command);
      const check = checkRefund(payment.status, payment.amount, amount, payment.refunds);
      if (!check.ok) throw ApplicationFailure.nonRetryable(check.code, check.code);
      const now = nowSeconds();
      const refund: RefundView = {
        id,
        payment_id: payment.id,
        amount,
        currency: payment.currency,
        merchant_reference: command.merchantReference,
        reason: command.reason,
        refund_type: check.refundType,
        status: 'PENDING',
        failure_code: null,
        failure_message: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
      };
      // Reserve before the first await: concurrent refunds see this amount as taken.
      change({ refunds: [...payment.refunds, refund] });
      await startRefundWorkflow(refund);
    }
    // The first report of the refund workflow: PROCESSING, or FAILED when rejected at submission.
    await condition(() => refundById(id)!.status !== 'PENDING');
    await projected();
    return refundById(id)!;
  }, {
    validator: (command) => {
      if (refundById(command.refundId)) return; // a retry of an accepted refund
      const check = checkRefund(payment.status, payment.amount, requestedAmount(command), payment.refunds);
      if (!check.ok) throw ApplicationFailure.nonRetryable(check.code, check.code);
    },
  });

  setHandler(refundProgressSignal, (progress) => {
    const index = payment.refunds.findIndex((r) => r.id === progress.refundId);
    if (index < 0) return;
    const current = payment.refunds[index]!;
    if (current.status === 'SUCCEEDED' || current.status === 'FAILED' || current.status === progress.status) return;
    const now = nowSeconds();
    const updated: RefundView = {
      ...current,
      status: progress.status,
      failure_code: progress.failureCode,
      failure_message: progress.failureCode ? failureMessage(progress.failureCode) : null,
      updated_at: now,
      completed_at: progress.status === 'SUCCEEDED' || progress.status === 'FAILED' ? now : null,
    };
    const refunds = payment.refunds.slice();
    refunds[index] = updated;
    change({ refunds });
    queueEvent({ kind: 'refund', refund: updated, livemode: payment.livemode }, updated.id, updated.status);
  });

  // The projector: the one place that writes the read model, always the latest version.
  const projector = (async () => {
    for (;;) {
      const projectionDue = () => payment.version > projectedVersion;
      const due = () => created && (projectionDue() || outbox.length > 0 || cardsToShred.length > 0);
      await condition(() => due() || stopProjector);
      if (due() && takes(ONE_CHANGE_RECORD_PATCH)) {
        // Events go out after the projection that shows them, in the same activity (an outbox).
        // While a handler waits for the projection it goes alone, and the events follow.
        const snapshot = payment;
        const eventsWait = projectionDue() && projectionWaiters > 0;
        const batch = eventsWait ? [] : outbox;
        if (!eventsWait) outbox = [];
        const shredCardTokens = cardsToShred;
        cardsToShred = [];
        await store.recordChange({ payment: projectionDue() ? snapshot : null, events: batch, shredCardTokens });
        projectedVersion = Math.max(projectedVersion, snapshot.version);
      } else if (created && projectionDue()) {
        const snapshot = payment;
        await projectionStore().recordPayment(snapshot);
        projectedVersion = snapshot.version;
      } else if (created && outbox.length > 0) {
        // Published after the projection, so a merchant reacting to the event reads this state.
        const batch = outbox;
        outbox = [];
        await events.publishEvents(batch);
      } else if (created && cardsToShred.length > 0) {
        await store.shredCard(cardsToShred.shift()!);
      } else if (stopProjector) {
        return;
      }
    }
  })();

  /**
   * A create answered 502 (or whose workflow task was lost with its local authorization) may have
   * reached the provider although nobody retried it. Before giving up, ask the provider under the
   * Payment's key; an authorization it holds registers the Payment as if the create had been answered.
   */
  async function adoptUnansweredAuthorization(token: string): Promise<void> {
    await exclusive(async () => {
      if (created) return;
      const found = await store.findAuthorization({ paymentId: payment.id, livemode: payment.livemode });
      if (!found || !isDefiniteAuthorization(found)) return;
      cardsToShred.push(token);
      applyAuthorization(found);
      created = true;
    });
  }

  async function finish(): Promise<PaymentView> {
    if (takes(HANDLERS_BEFORE_LAST_PROJECTION_PATCH)) {
      // A handler still running (a late provider notification, say) may change the Payment and
      // wait for its projection, so the projector stops only after the handlers are done.
      await condition(allHandlersFinished);
      stopProjector = true;
      await projector;
      return payment;
    }
    stopProjector = true;
    await projector;
    await condition(allHandlersFinished);
    return payment;
  }

  // 1. Wait to be created. A create the merchant never retried after a 429/502/503 leaves nothing.
  if (!created) {
    const wasCreated = await condition(() => created, settings.abandonAfterSeconds * 1000);
    if (!wasCreated) {
      await condition(() => !busy);
      if (!created && cardToken && takes(LOOKUP_BEFORE_GIVING_UP_PATCH)) await adoptUnansweredAuthorization(cardToken);
      if (!created) {
        if (cardToken) await store.shredCard(cardToken);
        return finish();
      }
    }
  }

  // 2. Customer action: 3D Secure steps or the hosted page, until done or expired.
  while (payment.status === 'REQUIRES_ACTION') {
    const deadlineMs = ((payment.status_transitions.requires_action_at ?? nowSeconds()) + settings.actionTtlSeconds) * 1000;
    const moved = await condition(() => payment.status !== 'REQUIRES_ACTION', Math.max(0, deadlineMs - Date.now()));
    if (moved) break;
    await exclusive(async () => {
      await refreshFromProvider();
      if (payment.status === 'REQUIRES_ACTION') change({ status: 'EXPIRED', next_action: null });
    });
  }
  if (cardToken && payment.status !== 'PENDING') cardToken = null; // shredded by the authorization activity

  // 3. Settlement: the provider says when to look again.
  let interval = settings.pollIntervalSeconds;
  while (payment.status === 'PROCESSING') {
    const waitMs = settleAt !== null ? Math.max(settleAt - Date.now(), 0) : interval * 1000;
    await sleep(Math.max(waitMs, 50));
    await exclusive(refreshFromProvider);
    if (payment.status === 'PROCESSING') {
      settleAt = null;
      interval = Math.min(interval * 2, settings.maxPollIntervalSeconds);
    }
  }

  if (payment.status !== 'SUCCEEDED') return finish();

  // 4. Refund window: the workflow owns the balance until the window closes and nothing is in flight.
  const windowEndsMs = ((payment.status_transitions.succeeded_at ?? nowSeconds()) + settings.refundWindowSeconds) * 1000;
  for (;;) {
    const closed = () => Date.now() >= windowEndsMs && !payment.refunds.some(ACTIVE_REFUND);
    await condition(() => closed() || workflowInfo().continueAsNewSuggested, Math.max(windowEndsMs - Date.now(), 1000));
    if (closed()) return finish();
    if (workflowInfo().continueAsNewSuggested) {
      await condition(() => !busy && projectedVersion >= payment.version && outbox.length === 0 && cardsToShred.length === 0 && allHandlersFinished());
      await continueAsNew<typeof PaymentWorkflow>({ ...input, payment, cardToken: null, carried: { created, providerId, settleAt } });
    }
  }
}

function mergeCard(known: PaymentView['card'], fromProvider: ProviderCardSummary): PaymentView['card'] {
  if (!known) return null;
  return { ...known, brand: fromProvider.brand ?? known.brand, country: fromProvider.country ?? known.country };
}

function fullyRefunded(payment: PaymentView): boolean {
  const covered = payment.refunds.filter((r) => r.status !== 'FAILED').reduce((sum, r) => sum + r.amount, 0);
  return payment.status === 'SUCCEEDED' && covered >= payment.amount;
}

function refundSearchAttributes(payment: PaymentView, refund: RefundView) {
  return searchAttributesFor({ objectType: 'refund', merchantId: payment.merchant_id, livemode: payment.livemode, amount: refund.amount, currency: refund.currency, status: refund.status });
}
