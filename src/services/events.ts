// The Events API's operations (docs/events.md), for merchants (scoped to the key's merchant and
// mode) and for the admin command (any event), on the one events read model.
import { scopeOf, type AuthContext, type Deps } from './context';
import type { DataSource } from 'typeorm';
import { findEventDetail, listEvents, purgeEventsBefore, type EventDetail, type EventListQuery } from '../read-models/events';

/** Events per purge transaction: small enough to hold few locks, large enough to keep up. */
const PURGE_BATCH = 1000;

/**
 * Deletes the events past their retention (created more than `retentionDays` days before `nowMs`),
 * with their deliveries and attempts. Run by every API process on a timer (src/api/server.ts);
 * two purges at once delete the same rows at most twice, which is harmless.
 */
export function purgeExpiredEvents(dataSource: DataSource, retentionDays: number, nowMs = Date.now()): Promise<number> {
  return purgeEventsBefore(dataSource, Math.floor(nowMs / 1000) - retentionDays * 86_400, PURGE_BATCH);
}

export class EventService {
  constructor(private readonly deps: Pick<Deps, 'dataSource'>) {}

  list(auth: AuthContext, query: EventListQuery) {
    return listEvents(this.deps.dataSource, scopeOf(auth), query);
  }

  /** The event of the key's merchant and mode, with its deliveries and attempts; null for any other. */
  find(auth: AuthContext, id: string): Promise<EventDetail | null> {
    return findEventDetail(this.deps.dataSource, scopeOf(auth), id);
  }
}
