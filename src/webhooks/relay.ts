// The relay: an event's first delivery attempt, made by the worker process that recorded the event,
// without a workflow. Most endpoints answer 2xx at once, and a workflow per event (its start, two
// workflow tasks, an activity) was a third of a create's CPU. A WebhookDeliveryWorkflow (Temporal's
// retries for 3 days, visible to operators) starts only when that attempt fails or cannot be made.
//
// Nothing is lost when a process dies: each event is written with a lease (`relay_lease_until_ms`)
// in the activity that records it, and is settled (lease cleared) only once it was delivered,
// refused, had no endpoint, or was handed to a workflow. The sweeper of every worker hands events
// whose lease ran out unsettled to a workflow. An attempt that reached the endpoint just before its
// process died may be made again: delivery is at least once, under the same webhook-id.
import { LessThan } from 'typeorm';
import { every, type Repeating } from '../background/every';
import { Event, WebhookAttempt } from '../db/entities';
import type { Logger } from '../observability/logger';
import { attemptDelivery, type DeliverableEvent, type DeliveryDeps } from './delivery';
import { startDelivery, type DeliveryStarterDeps } from '../temporal/start-delivery';

export type RelayDeps = DeliveryDeps & DeliveryStarterDeps & { logger: Logger };

export interface RelaySettings {
  /** How long the recording process owns an event's first attempt before a sweeper takes it over. */
  leaseMs: number;
  sweepIntervalMs: number;
  /** First attempts in flight at once per process; the rest queue. */
  concurrency: number;
}

const SWEEP_BATCH = 100;

export class WebhookRelay {
  private readonly queue: Array<{ event: DeliverableEvent; leaseUntilMs: number }> = [];
  private readonly running = new Set<Promise<void>>();
  private sweeper: Repeating | null = null;
  private stopped = false;

  constructor(private readonly deps: RelayDeps, private readonly settings: RelaySettings) {}

  /** The lease a new event is written with. */
  leaseUntil(nowMs = Date.now()): number {
    return nowMs + this.settings.leaseMs;
  }

  /** Queues the first attempt of an event this process just recorded, as recorded, with `leaseUntil`. */
  enqueue(event: DeliverableEvent, leaseUntilMs: number): void {
    if (this.stopped) return; // the sweeper of a running worker takes it over
    this.queue.push({ event, leaseUntilMs });
    this.pump();
  }

  /** Sweeps every `sweepIntervalMs` until `stop()`. */
  start(): void {
    this.sweeper ??= every(this.settings.sweepIntervalMs, () => this.sweep(), (error) => this.deps.logger.warn({ err: String(error) }, 'webhook relay sweep failed'));
  }

  /** Hands every event whose lease ran out unsettled to a delivery workflow; returns how many. */
  async sweep(nowMs = Date.now()): Promise<number> {
    let handed = 0;
    for (;;) {
      const expired = await this.deps.dataSource.getRepository(Event).find({
        select: { id: true }, where: { relay_lease_until_ms: LessThan(nowMs) }, order: { relay_lease_until_ms: 'ASC' }, take: SWEEP_BATCH,
      });
      for (const { id } of expired) {
        // Attempts its relay recorded before it stopped count, so the schedule goes on from them.
        const attemptsBefore = await this.deps.dataSource.getRepository(WebhookAttempt).countBy({ event_id: id, delivery_id: id });
        await this.handOff(id, attemptsBefore);
      }
      handed += expired.length;
      if (expired.length < SWEEP_BATCH) return handed;
    }
  }

  /**
   * Stops taking work: queued events are handed to workflows now (or, failing that, to a sweeper
   * when their lease runs out) and attempts in flight finish.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sweeper?.stop();
    this.sweeper = null;
    const queued = this.queue.splice(0);
    await Promise.allSettled(queued.map((item) => this.handOff(item.event.id, 0)));
    await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    while (this.running.size < this.settings.concurrency && this.queue.length > 0) {
      const item = this.queue.shift()!;
      const run: Promise<void> = this.relay(item.event, item.leaseUntilMs)
        .catch((error: unknown) => {
          // Left unsettled: a sweeper hands it to a workflow when the lease runs out.
          this.deps.logger.warn({ err: String(error), eventId: item.event.id }, 'webhook relay attempt failed to finish');
        })
        .finally(() => {
          this.running.delete(run);
          this.pump();
        });
      this.running.add(run);
    }
  }

  private async relay(event: DeliverableEvent, leaseUntilMs: number): Promise<void> {
    // An attempt that could outlast the lease might overlap a sweeper's workflow: hand it over instead.
    if (this.stopped || Date.now() + this.deps.webhooks.attemptTimeoutMs * 2 >= leaseUntilMs) {
      await this.handOff(event.id, 0);
      return;
    }
    const outcome = await attemptDelivery(this.deps, { eventId: event.id, event, deliveryId: event.id, attempt: 1 });
    if (outcome.kind === 'failed') await this.handOff(event.id, 1);
    else await this.settle(event.id);
  }

  private async handOff(eventId: string, attemptsBefore: number): Promise<void> {
    await startDelivery(this.deps, eventId, eventId, attemptsBefore);
    await this.settle(eventId);
  }

  private async settle(eventId: string): Promise<void> {
    await this.deps.dataSource.getRepository(Event).update({ id: eventId }, { relay_lease_until_ms: null });
  }
}
