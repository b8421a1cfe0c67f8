// The Events API's operations (docs/events.md), for merchants (scoped to the key's merchant and
// mode) and for the admin command (any event), on the one events read model.
import { scopeOf, type AuthContext, type Deps } from './context';
import { findEventDetail, listEvents, type EventDetail, type EventListQuery } from '../read-models/events';

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
