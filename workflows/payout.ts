// PayoutWorkflow: one per Payout (workflow id = payout id), started with Update-with-Start. It is
// the single writer of its Payout. It submits once and answers the `submit` update with the status
// that first answer gives; an uncertain answer (429, 5xx, timeout) leaves the Payout PENDING.
// It then resolves the Payout by looking it up at the provider under its idempotency key, and
// submits again (same key) only when the provider says it never received it, on durable timers with
// exponential backoff, until the Payout is terminal. There is no completion deadline. History stays
// bounded through continue-as-new. Deterministic: imports only @temporalio/workflow, activity
// types and pure domain modules.
import {
  allHandlersFinished, condition, continueAsNew, defineQuery, defineUpdate, proxyActivities, setHandler, sleep,
  upsertSearchAttributes, uuid4, workflowInfo,
} from '@temporalio/workflow';
import type { PayoutActivities } from '../activities/payout';
import type { PendingEvent, WebhookActivities } from '../activities/webhooks';
import { BACKGROUND_ACTIVITY_OPTIONS } from './activity-options';
import { eventIdFromUuid, eventTypeFor } from '../src/webhooks/event-types';
import { failureMessage } from '../src/domain/failure-codes';
import {
  isTerminalPayoutStatus, nextPollInterval, pollDelayMs, type PayoutView, type PollHint, type PollSchedule,
} from '../src/domain/payout';
import type { LookupResult, PayoutResult } from '../src/provider/types';
import { LastPolledAtKey, ObjectStatusKey, PollAttemptsKey } from '../src/temporal/search-attributes';

export interface PayoutSettings extends PollSchedule {
  /** Provider look-ups per run before continue-as-new starts a fresh history. */
  pollsPerRun: number;
}

export interface PayoutWorkflowInput {
  payout: PayoutView;
  /** Vault token of the destination card, shredded once the Payout is terminal. */
  cardToken: string;
  settings: PayoutSettings;
  /** Set by continue-as-new: the Payout was submitted and is being resolved. */
  resolving?: { intervalSeconds: number; hint: PollHint };
}

/** Answers with the Payout once the provider's first answer is recorded in the read model. */
export const submitPayoutUpdate = defineUpdate<PayoutView, []>('submit');
export const payoutQuery = defineQuery<PayoutView>('payout');

type ProviderAnswer = LookupResult<PayoutResult>;

const submission = proxyActivities<PayoutActivities>({
  // Longer than the provider client's own timeout, which answers "uncertain" first.
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});
const lookup = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});
const events = proxyActivities<WebhookActivities>(BACKGROUND_ACTIVITY_OPTIONS);
const store = proxyActivities<PayoutActivities>(BACKGROUND_ACTIVITY_OPTIONS);

export async function PayoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutView> {
  const { settings, cardToken } = input;
  let payout = input.payout;
  let submitted = input.resolving !== undefined;
  let intervalSeconds = input.resolving?.intervalSeconds ?? settings.initialSeconds;
  let hint: PollHint = input.resolving?.hint ?? {};
  // A continued run starts from a Payout its previous run had already projected.
  let projectedVersion = submitted ? payout.version : -1;
  let stopProjector = false;

  const nowSeconds = () => Math.floor(Date.now() / 1000);

  /** Events wait here until the projection that shows them is written (an outbox). */
  let outbox: PendingEvent[] = [];
  function queueEvent(): void {
    const type = eventTypeFor('payout', payout.status);
    if (!type) return;
    outbox.push({ id: eventIdFromUuid(uuid4()), type, merchantId: payout.merchant_id, livemode: payout.livemode, objectId: payout.id, createdAt: nowSeconds(), subject: { kind: 'payout', payout } });
  }

  /** Every change goes through here: new version, timestamps, the status search attribute. */
  function change(patch: Partial<PayoutView>): void {
    const previousStatus = payout.status;
    const next = { ...payout, ...patch, version: payout.version + 1 };
    if (patch.status !== undefined && patch.status !== payout.status) {
      next.updated_at = nowSeconds();
      if (isTerminalPayoutStatus(patch.status)) next.completed_at = next.updated_at;
      upsertSearchAttributes([{ key: ObjectStatusKey, value: patch.status }]);
    }
    payout = next;
    if (next.status !== previousStatus) queueEvent();
  }

  /** What a provider answer changes. Uncertain answers change nothing but when to look next. */
  function outcome(answer: ProviderAnswer): Partial<PayoutView> {
    hint = {};
    switch (answer.kind) {
      case 'processing':
        hint = { settleAtMs: answer.settleAt };
        return payout.status === 'PENDING' ? { status: 'PROCESSING' } : {};
      case 'succeeded':
        return { status: 'SUCCEEDED' };
      case 'failed':
        return { status: 'FAILED', failure_code: answer.failureCode, failure_message: failureMessage(answer.failureCode) };
      case 'uncertain':
        hint = { retryAfterSeconds: 'retryAfterSeconds' in answer ? answer.retryAfterSeconds : null };
        return {};
      case 'not_found':
        return {};
    }
  }

  async function submit(): Promise<ProviderAnswer> {
    try {
      return await submission.submitPayout({
        payoutId: payout.id,
        livemode: payout.livemode,
        cardToken,
        amount: payout.amount,
        currency: payout.currency,
        recipient: payout.recipient,
      });
    } catch {
      // The activity itself failed (a worker died mid-call, say): whether the provider acted is unknown.
      return { kind: 'uncertain' };
    }
  }

  async function poll(): Promise<void> {
    const polledAtMs = Date.now();
    let answer: ProviderAnswer;
    try {
      answer = await lookup.pollPayoutStatus({ payoutId: payout.id, livemode: payout.livemode });
    } catch {
      answer = { kind: 'uncertain' };
    }
    // Never received: submit again under the same provider key. Only a PENDING payout can be unknown.
    if (answer.kind === 'not_found' && payout.status === 'PENDING') answer = await submit();
    const attempts = payout.poll_attempts + 1;
    upsertSearchAttributes([
      { key: PollAttemptsKey, value: attempts },
      { key: LastPolledAtKey, value: new Date(polledAtMs) },
    ]);
    change({ poll_attempts: attempts, last_polled_at: Math.floor(polledAtMs / 1000), ...outcome(answer) });
  }

  /** Resolves once the read model shows at least the current version (read-your-writes for the API). */
  async function projected(): Promise<void> {
    const target = payout.version;
    await condition(() => projectedVersion >= target);
  }

  setHandler(payoutQuery, () => payout);
  setHandler(submitPayoutUpdate, async () => {
    await condition(() => submitted);
    await projected();
    return payout;
  });

  // The projector: the one place that writes the read model, always the latest version.
  const projector = (async () => {
    for (;;) {
      await condition(() => payout.version > projectedVersion || outbox.length > 0 || stopProjector);
      if (payout.version > projectedVersion) {
        const snapshot = payout;
        await store.recordPayout(snapshot);
        projectedVersion = snapshot.version;
      } else if (outbox.length > 0) {
        // Published after the projection, so a merchant reacting to the event reads this state.
        const batch = outbox;
        outbox = [];
        await events.publishEvents(batch);
      } else {
        return;
      }
    }
  })();

  if (!submitted) {
    change(outcome(await submit()));
    if (payout.status === 'PENDING') queueEvent(); // an uncertain first answer: payout.pending
    submitted = true;
  }

  let pollsThisRun = 0;
  while (!isTerminalPayoutStatus(payout.status)) {
    if (pollsThisRun >= settings.pollsPerRun || workflowInfo().continueAsNewSuggested) {
      await condition(() => projectedVersion >= payout.version && outbox.length === 0 && allHandlersFinished());
      await continueAsNew<typeof PayoutWorkflow>({ ...input, payout, resolving: { intervalSeconds, hint } });
    }
    await sleep(pollDelayMs(intervalSeconds, hint, Date.now()));
    await poll();
    pollsThisRun += 1;
    intervalSeconds = nextPollInterval(intervalSeconds, settings);
  }

  await store.shredPayoutCard(cardToken);
  stopProjector = true;
  await projector;
  await condition(allHandlersFinished);
  return payout;
}
