// The relay: the first attempt of each delivery, made by the worker process that recorded the
// event, without a workflow. Most endpoints answer 2xx at once, and a workflow per delivery (its
// start, two workflow tasks, an activity) was a third of a create's CPU. A delivery whose first
// attempt fails opens its endpoint's circuit (src/webhooks/circuit.ts), whose pending deliveries a
// circuit sweeper then drains in order on one backoff; while the circuit is open, the relay makes
// no attempt to that endpoint: the delivery is left pending behind the probe, at the cost of one
// read. A Shape B `callback_url` delivery has no endpoint: it gets a WebhookDeliveryWorkflow of its
// own. Each delivery is its own piece of work: one endpoint that is down or slow never holds up
// another's attempt (and it may hold at most a share of the relay's slots: past that, its
// deliveries go behind its circuit, drained at once).
//
// Nothing is lost when a process dies: each event is written with a lease (`relay_lease_until_ms`)
// in the activity that records it, and is settled (lease cleared) only once every delivery of it
// was delivered, refused, left behind an open circuit, or handed to a workflow. The sweeper of
// every worker takes over events whose lease ran out unsettled: it plans their deliveries if the
// recorder died before it could, and puts every delivery still pending behind its circuit (or, for
// a callback, in a workflow). An attempt that reached the endpoint just before its process died may
// be made again: delivery is at least once, under the same webhook-id.
import { In, LessThan } from 'typeorm';
import { every, type Repeating } from '../background/every';
import { Event, WebhookDelivery } from '../db/entities';
import type { Logger } from '../observability/logger';
import { startDelivery, type DeliveryStarterDeps } from '../temporal/start-delivery';
import { circuitOpen, dueNow, openCircuit } from './circuit';
import { planDeliveries, type DeliveryTarget } from './deliveries';
import { attemptDelivery, type DeliveryDeps } from './delivery';

export type RelayDeps = DeliveryDeps & DeliveryStarterDeps & { logger: Logger };

export interface RelaySettings {
  /** How long the recording process owns an event's first attempts before a sweeper takes them over. */
  leaseMs: number;
  sweepIntervalMs: number;
  /** First attempts in flight at once per process; the rest queue. */
  concurrency: number;
}

const SWEEP_BATCH = 100;

interface Item {
  target: DeliveryTarget;
  leaseUntilMs: number;
}

export class WebhookRelay {
  private readonly queue: Item[] = [];
  private readonly running = new Set<Promise<void>>();
  /** Deliveries of each event not finished yet; at zero the event is settled. */
  private readonly unfinished = new Map<string, number>();
  /** First attempts in flight per URL, so that one slow endpoint cannot take every slot. */
  private readonly inFlightByUrl = new Map<string, number>();
  private sweeper: Repeating | null = null;
  private stopped = false;

  constructor(private readonly deps: RelayDeps, private readonly settings: RelaySettings) {}

  /** The lease a new event is written with. */
  leaseUntil(nowMs = Date.now()): number {
    return nowMs + this.settings.leaseMs;
  }

  private get perUrlLimit(): number {
    return Math.max(1, Math.floor(this.settings.concurrency / 4));
  }

  /** Queues the first attempts of an event this process just recorded and planned, with its lease. */
  enqueue(eventId: string, targets: readonly DeliveryTarget[], leaseUntilMs: number): void {
    if (this.stopped) return; // the sweeper of a running worker takes it over
    if (!targets.length) {
      void this.settle(eventId).catch((error: unknown) => this.deps.logger.warn({ err: String(error), eventId }, 'webhook relay settle failed'));
      return;
    }
    this.unfinished.set(eventId, (this.unfinished.get(eventId) ?? 0) + targets.length);
    for (const target of targets) this.queue.push({ target, leaseUntilMs });
    this.pump();
  }

  /** Sweeps every `sweepIntervalMs` until `stop()`. */
  start(): void {
    this.sweeper ??= every(this.settings.sweepIntervalMs, () => this.sweep(), (error) => this.deps.logger.warn({ err: String(error) }, 'webhook relay sweep failed'));
  }

  /** Takes over every event whose lease ran out unsettled; returns how many. */
  async sweep(nowMs = Date.now()): Promise<number> {
    const events = this.deps.dataSource.getRepository(Event);
    let taken = 0;
    for (;;) {
      const expired = await events.find({
        select: { id: true, merchant_id: true, livemode: true, type: true, payload: true, payload_b: true, endpoint: true, relay_lease_until_ms: true },
        where: { relay_lease_until_ms: LessThan(nowMs) }, order: { relay_lease_until_ms: 'ASC' }, take: SWEEP_BATCH,
      });
      for (const event of expired) {
        // One sweeper per event: the one whose renewal of the expired lease took.
        const claimed = await events.update({ id: event.id, relay_lease_until_ms: event.relay_lease_until_ms! }, { relay_lease_until_ms: this.leaseUntil() });
        if (!claimed.affected) continue;
        const planned = await this.deps.dataSource.getRepository(WebhookDelivery).find({ where: { event_id: event.id } });
        if (!planned.length) await planDeliveries(this.deps.dataSource, this.deps.webhookSecrets, event);
        const pending = await this.deps.dataSource.getRepository(WebhookDelivery).find({ where: { event_id: event.id, status: In(['pending']) } });
        for (const delivery of pending) {
          // An endpoint's circuit sends what is pending to it, oldest first (an open one at its next
          // probe). A callback's schedule goes on from the attempts the relay made before it stopped.
          if (delivery.endpoint_id !== null) await openCircuit(this.deps.dataSource, delivery.endpoint_id, nowMs, nowMs);
          else await startDelivery(this.deps, { deliveryId: delivery.id, eventId: event.id }, delivery.attempts);
        }
        await this.settle(event.id);
        taken += 1;
      }
      if (expired.length < SWEEP_BATCH) return taken;
    }
  }

  /**
   * Stops taking work: queued deliveries go behind their circuits (or a callback's workflow) now,
   * or failing that to a sweeper when their event's lease runs out; attempts in flight finish.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sweeper?.stop();
    this.sweeper = null;
    const queued = this.queue.splice(0);
    await Promise.allSettled(queued.map((item) => this.finish(item.target, () => this.handOff(item.target))));
    await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    while (this.running.size < this.settings.concurrency && this.queue.length > 0) {
      const item = this.queue.shift()!;
      const run: Promise<void> = this.finish(item.target, () => this.relay(item))
        .finally(() => {
          this.running.delete(run);
          this.pump();
        });
      this.running.add(run);
    }
  }

  /** Runs one delivery's work, then settles its event once all of the event's deliveries are done. */
  private async finish(target: DeliveryTarget, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      // The event stays unsettled: a sweeper hands what is pending to workflows when the lease runs out.
      this.deps.logger.warn({ err: String(error), eventId: target.eventId, deliveryId: target.id }, 'webhook relay attempt failed to finish');
      this.unfinished.delete(target.eventId);
      return;
    }
    const left = (this.unfinished.get(target.eventId) ?? 1) - 1;
    if (left > 0) {
      this.unfinished.set(target.eventId, left);
      return;
    }
    if (!this.unfinished.has(target.eventId)) return; // an earlier delivery of it failed to finish
    this.unfinished.delete(target.eventId);
    await this.settle(target.eventId).catch((error: unknown) => this.deps.logger.warn({ err: String(error), eventId: target.eventId }, 'webhook relay settle failed'));
  }

  private async relay(item: Item): Promise<void> {
    const { target } = item;
    // Planned while its endpoint's circuit was open: it waits behind the probe, unless the circuit
    // closed since (read after the delivery was written, so that the closing drain or this read
    // sees it).
    if (target.circuitOpen && target.endpointId !== null && await circuitOpen(this.deps.dataSource, target.endpointId)) return;
    const inFlight = this.inFlightByUrl.get(target.url) ?? 0;
    // An attempt that could outlast the lease might overlap a sweeper's drain, and an endpoint
    // with its share of slots busy is slow: hand the delivery over instead.
    if (this.stopped || Date.now() + this.deps.webhooks.attemptTimeoutMs * 2 >= item.leaseUntilMs || inFlight >= this.perUrlLimit) {
      await this.handOff(target);
      return;
    }
    this.inFlightByUrl.set(target.url, inFlight + 1);
    let outcome;
    try {
      outcome = await attemptDelivery(this.deps, { deliveryId: target.id, target, attempt: 1 });
    } finally {
      const left = (this.inFlightByUrl.get(target.url) ?? 1) - 1;
      if (left > 0) this.inFlightByUrl.set(target.url, left);
      else this.inFlightByUrl.delete(target.url);
    }
    if (outcome.kind !== 'failed') return;
    // Its circuit probes it again at its next attempt's time at the latest.
    if (target.endpointId !== null) await openCircuit(this.deps.dataSource, target.endpointId, outcome.nextAttemptAtMs ?? Date.now());
    else await startDelivery(this.deps, { deliveryId: target.id, eventId: target.eventId }, 1);
  }

  /** A delivery not attempted here: behind its endpoint's circuit, due now, or a callback's workflow. */
  private async handOff(target: DeliveryTarget): Promise<void> {
    if (target.endpointId !== null) {
      const nowMs = Date.now();
      await dueNow(this.deps.dataSource, target.id, nowMs);
      await openCircuit(this.deps.dataSource, target.endpointId, nowMs, nowMs);
    }
    else await startDelivery(this.deps, { deliveryId: target.id, eventId: target.eventId });
  }

  private async settle(eventId: string): Promise<void> {
    await this.deps.dataSource.getRepository(Event).update({ id: eventId }, { relay_lease_until_ms: null });
  }
}
