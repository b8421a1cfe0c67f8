// The Events API's operations (docs/events.md), for merchants (scoped to the key's merchant and
// mode) and for the admin command (any event), on the one events read model.
import { scopeOf, type AuthContext, type Deps } from './context';
import { claimManualAttempt } from '../webhooks/deliveries';
import { attemptDelivery } from '../webhooks/delivery';
import { destinationPolicy } from '../webhooks/destination';
import { WebhookSecrets } from '../webhooks/secrets';
import type { DataSource } from 'typeorm';
import { deliveriesOfEvent, findEventDetail, listEvents, purgeEventsBefore, type EventDetail, type EventListQuery } from '../read-models/events';

/** Events per purge transaction: small enough to hold few locks, large enough to keep up. */
const PURGE_BATCH = 1000;

/**
 * Deletes the events past their retention (created more than `retentionDays` days before `nowMs`),
 * with their deliveries and attempts; answers how many events. Run once per cluster by the
 * `chore-event-purge` schedule (src/temporal/chore-schedules.ts).
 */
export function purgeExpiredEvents(dataSource: DataSource, retentionDays: number, nowMs = Date.now()): Promise<number> {
  return purgeEventsBefore(dataSource, Math.floor(nowMs / 1000) - retentionDays * 86_400, PURGE_BATCH);
}

export class EventService {
  constructor(private readonly deps: Pick<Deps, 'dataSource' | 'config' | 'secretBox' | 'metrics' | 'logger'>) {}

  list(auth: AuthContext, query: EventListQuery) {
    return listEvents(this.deps.dataSource, scopeOf(auth), query);
  }

  /** The event of the key's merchant and mode, with its deliveries and attempts; null for any other. */
  find(auth: AuthContext, id: string): Promise<EventDetail | null> {
    return findEventDetail(this.deps.dataSource, scopeOf(auth), id);
  }

  /**
   * One new attempt to each endpoint the event was sent to (or to `endpointId` only), whatever
   * earlier attempts did: the same webhook-id (the event id), a fresh timestamp and signature, the
   * body the endpoint's version takes, to the endpoint's current URL. The attempts run in the
   * background (their results appear in the event's deliveries); an endpoint that got a manual
   * attempt of this event in the last minute gets none, so no request turns into a stream of
   * outbound ones. It is no new schedule: a 2xx marks the delivery succeeded, anything else leaves
   * its status and retries as they were. Answers the event as retrieve shows it now, or which id
   * was not found.
   */
  async retry(auth: AuthContext, id: string, endpointId?: string): Promise<EventDetail | { notFound: 'id' | 'webhook_endpoint_id' }> {
    const { dataSource, config } = this.deps;
    const scope = scopeOf(auth);
    const found = await findEventDetail(dataSource, scope, id);
    if (!found) return { notFound: 'id' };
    const deliveries = (await deliveriesOfEvent(dataSource, id)).filter((d) => d.endpointId !== null && (endpointId === undefined || d.endpointId === endpointId));
    if (endpointId !== undefined && !deliveries.length) return { notFound: 'webhook_endpoint_id' };
    const deliveryDeps = {
      dataSource,
      webhookSecrets: new WebhookSecrets(dataSource, this.deps.secretBox),
      webhooks: { attemptTimeoutMs: config.webhookAttemptTimeoutMs, initialRetrySeconds: config.webhookInitialRetrySeconds, destinations: destinationPolicy(config) },
      metrics: this.deps.metrics,
    };
    for (const delivery of deliveries) {
      if (!(await claimManualAttempt(dataSource, delivery.id))) continue;
      void attemptDelivery(deliveryDeps, { deliveryId: delivery.id, extra: true })
        .catch((error: unknown) => this.deps.logger.warn({ err: String(error), eventId: id, deliveryId: delivery.id }, 'manual webhook attempt failed'));
    }
    return found;
  }
}
