// The projection of an object its workflow owns (a Payment, a Payout), the same for every such
// workflow. The workflow changes the object only through `set`, which moves it to its next version;
// a projector loop writes the latest version to the read model, starts the RefundWorkflows of the
// refunds it took, publishes the events it shows after it (an outbox), and shreds the cards whose
// last use is in history, in ONE `recordChange` activity per turn. The projector is a regular activity, never a local one: a local activity runs before the
// server has accepted its workflow task and could publish state that never happened.
import { allHandlersFinished, condition, patched, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { ProjectedObject, ProjectionActivities } from '../activities/projection';
import type { RefundWorkflowInput } from '../contracts/refund';
import { compactPaymentEvent, eventIdFromUuid, eventTypeFor, holdsEveryRefund, type EventSubject, type PendingEvent } from '../src/domain/events';
import { BACKGROUND_ACTIVITY_OPTIONS } from './activity-options';

const { recordChange } = proxyActivities<ProjectionActivities>(BACKGROUND_ACTIVITY_OPTIONS);

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The projector waits again when held between its condition and its turn (see project()). */
export const PROJECTOR_WAITS_AGAIN_PATCH = 'projector-waits-again';

export interface ProjectionOptions<T> {
  /** The object as the activity records it, given the state the read model was last written with. */
  record: (state: T, projected: T | null) => ProjectedObject;
  /** Whose object it is: every event of it carries this merchant and mode. */
  owner: { merchantId: string; livemode: boolean };
  /** Writes nothing before `open()` (a Payment whose create the provider has not answered has no row). */
  open: boolean;
  /** The initial state is in the read model already (a run continued as new). */
  projected: boolean;
  /**
   * While true the projector waits: a state about to be superseded (a refund reserved, its
   * submission with the provider) is not worth a write of its own.
   */
  held?: () => boolean;
}

export class Projection<T extends { version: number }> {
  private current: T;
  private projectedVersion: number;
  /** The state the read model was last written with (null before the first write). */
  private lastProjected: T | null;
  private isOpen: boolean;
  private outbox: PendingEvent[] = [];
  /** The last event queued whose recorded body will hold every refund, in full: what the next may build on. */
  private lastWithEveryRefund: PendingEvent | null = null;
  private cardsToShred: string[] = [];
  private refundWorkflows: RefundWorkflowInput[] = [];
  /** About how many bytes this run's change records have put in history (eventInputBytes, objectInputBytes). */
  private recordedBytes = 0;
  /** Handlers waiting for the read model to show their change (a refund's answer, say). */
  private waiters = 0;
  private stopping = false;
  /** The projector loop runs (false once it returned: the run stopping, or the stop resume() undoes). */
  private projecting = false;
  private projector: Promise<void>;

  constructor(initial: T, private readonly options: ProjectionOptions<T>) {
    this.current = initial;
    this.projectedVersion = options.projected ? initial.version : -1;
    this.lastProjected = options.projected ? initial : null;
    this.isOpen = options.open;
    this.projector = this.project();
  }

  get state(): T {
    return this.current;
  }

  /** The object's next version: every change goes through here. */
  set(next: T): void {
    this.current = { ...next, version: this.current.version + 1 };
  }

  open(): void {
    this.isOpen = true;
  }

  /** Queues the event of a move into `status`, if that status has one; it goes out after the projection that shows it. */
  queueEvent(subject: EventSubject, status: string, callbackUrl?: string): void {
    const type = eventTypeFor(subject.kind, status);
    if (!type) return;
    const { merchantId, livemode } = this.options.owner;
    const event: PendingEvent = {
      id: eventIdFromUuid(uuid4()), type, merchantId, livemode, objectId: subjectId(subject), createdAt: nowSeconds(), subject,
      ...(callbackUrl ? { callbackUrl } : {}),
    };
    // Events go out in queue order, so the one a compact event builds on is recorded before it.
    this.outbox.push(compactPaymentEvent(event, this.lastWithEveryRefund));
    if (holdsEveryRefund(event)) this.lastWithEveryRefund = event;
  }

  /** The vault forgets this card with the next change record, once the state that no longer needs it is in history. */
  shredCard(token: string): void {
    this.cardsToShred.push(token);
  }

  /**
   * The refund's RefundWorkflow is started with the next change record: by an activity, once the
   * state that took the refund is in history, so the Payment's workflow gets no task for the start.
   */
  startRefundWorkflow(input: RefundWorkflowInput): void {
    this.refundWorkflows.push(input);
  }

  /** Resolves once the read model shows at least the current version (read-your-writes for the API). */
  async projected(): Promise<void> {
    const target = this.current.version;
    this.waiters += 1;
    try {
      await condition(() => this.projectedVersion >= target);
    } finally {
      this.waiters -= 1;
    }
  }

  /** The state the projector last wrote: what the read model shows at least (null: nothing yet). */
  projectedState(): T | null {
    return this.lastProjected;
  }

  /** About how many bytes this run's change records have put in history: the run's own measure of its size. */
  inputBytes(): number {
    return this.recordedBytes;
  }

  /**
   * Starts the projector again if it stopped while the run goes on: a run started before
   * PROJECTOR_WAITS_AGAIN_PATCH replays its projector's stop, and an operator's signal brings it
   * back (docs/operations.md). Nothing happens while it runs. Only a new signal calls this, so
   * histories without one replay as before.
   */
  resume(): void {
    if (this.projecting || this.stopping) return;
    this.projector = this.project();
  }

  /** Nothing is waiting to be written: a run may continue as new. */
  idle(): boolean {
    return !this.pending();
  }

  /**
   * Ends the projection once everything is written. A handler still running (a late provider
   * notification, say) may change the object and wait for its projection, so the projector stops
   * only after the last handler is done.
   */
  async stop(): Promise<void> {
    await condition(allHandlersFinished);
    this.stopping = true;
    await this.projector;
  }

  private projectionDue(): boolean {
    return this.current.version > this.projectedVersion;
  }

  private due(): boolean {
    // Holding is for a state about to be superseded, not for events: once more are waiting than one
    // turn takes, the projector goes on, or on a hot Payment the outbox would grow without end.
    const held = (this.options.held?.() ?? false) && eventsPerTurn(this.outbox) === this.outbox.length;
    return this.pending() && !held;
  }

  private pending(): boolean {
    return this.isOpen && (this.projectionDue() || this.outbox.length > 0 || this.cardsToShred.length > 0 || this.refundWorkflows.length > 0);
  }

  /** The one place that writes the read model, always the latest version. */
  private async project(): Promise<void> {
    this.projecting = true;
    for (;;) {
      await condition(() => this.due() || this.stopping);
      if (!this.due()) {
        // The condition held when checked, but a handler that ran before this line may have held
        // the projector again (a refund submission): wait again unless stopping. Runs recorded
        // before the patch stop projecting there (refunds left PROCESSING) until resume().
        if (this.stopping || !patched(PROJECTOR_WAITS_AGAIN_PATCH)) {
          this.projecting = false;
          return;
        }
        continue;
      }
      const snapshot = this.current;
      const projectionDue = this.projectionDue();
      // While a handler waits for the projection it goes alone, and the events follow next turn.
      const eventsWait = projectionDue && this.waiters > 0;
      const events = eventsWait ? [] : this.outbox.splice(0, eventsPerTurn(this.outbox));
      const shredCardTokens = this.cardsToShred;
      this.cardsToShred = [];
      const refundWorkflows = this.refundWorkflows;
      this.refundWorkflows = [];
      const object = projectionDue ? this.options.record(snapshot, this.lastProjected) : null;
      this.recordedBytes += (object ? objectInputBytes(object) : 0) + events.reduce((sum, event) => sum + eventInputBytes(event), 0);
      await recordChange({ object, events, shredCardTokens, refundWorkflows });
      if (projectionDue && snapshot.version > this.projectedVersion) this.lastProjected = snapshot;
      this.projectedVersion = Math.max(this.projectedVersion, snapshot.version);
    }
  }
}

/**
 * About how many bytes of activity input an event takes: a Payment event carries the Payment with
 * its refunds (all of them, unless compact: compactPaymentEvent).
 */
export function eventInputBytes(event: PendingEvent): number {
  return 1_000 + (event.subject.kind === 'payment' ? event.subject.payment.refunds.length * 500 : 0);
}

/** About how many bytes of activity input a recorded object takes (a Payment's refunds are those that moved). */
export function objectInputBytes(object: ProjectedObject): number {
  return 2_000 + (object.kind === 'payment' ? object.payment.refunds.length * 500 : 0);
}

/**
 * One turn's input stays below the server's 512 KB warning for a payload (the estimate is above a
 * refund's real size), far below the 2 MB whose breach terminates the workflow.
 */
export const EVENT_BYTES_PER_TURN = 480 * 1024;

/** How many of the outbox's first events go out in one turn: at least one, then up to EVENT_BYTES_PER_TURN. */
export function eventsPerTurn(outbox: readonly PendingEvent[], budget = EVENT_BYTES_PER_TURN): number {
  let bytes = 0;
  let count = 0;
  while (count < outbox.length) {
    bytes += eventInputBytes(outbox[count]!);
    if (count > 0 && bytes > budget) break;
    count += 1;
  }
  return count;
}

function subjectId(subject: EventSubject): string {
  switch (subject.kind) {
    case 'payment': return subject.payment.id;
    case 'refund': return subject.refund.id;
    case 'payout': return subject.payout.id;
  }
}
