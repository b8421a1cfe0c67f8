// The events read model (docs/events.md): the events a merchant's API key may read, newest first,
// with their deliveries and attempts, and the retention purge. Events are written once, by the
// outbox (activities/webhooks.ts); deliveries and attempts by the delivery path (src/webhooks/).
import { In, LessThan, type DataSource } from 'typeorm';
import { Event, WebhookAttempt, WebhookDelivery, type EventRow, type WebhookAttemptRow, type WebhookDeliveryRow } from '../db/entities';
import { isMysql } from '../db/dialect';
import type { EventDeliveryView, EventType, RecordedEvent } from '../domain/events';
import { pageRows, seqPageOf, type CursorNotFound, type SeqPage, type SeqPageQuery } from './seq-pages';

export interface Scope {
  merchantId: string;
  livemode: boolean;
}

export interface EventListQuery extends SeqPageQuery {
  /** An event matches when its type is one of these (a wildcard is expanded to its types first). */
  types?: readonly EventType[];
  objectId?: string;
  createdGte?: number;
  createdLt?: number;
  /** True: every delivery of the event succeeded (none at all counts); false: at least one has not. */
  deliverySuccess?: boolean;
}

/** An event with what happened to each of its deliveries, attempts oldest first. */
export interface EventDetail {
  event: RecordedEvent;
  deliveries: EventDeliveryView[];
}

/** Drivers return BIGINT columns as numbers or strings. */
const num = (value: number | string): number => Number(value);

/** An event row as read by the entity or by raw SQL (where booleans come back as 0 or 1). */
type EventColumns = Pick<EventRow, 'id' | 'type' | 'payload'> & { created_at: number | string; livemode: boolean | number };

export function recordedEvent(row: EventColumns): RecordedEvent {
  return { id: row.id, type: row.type, createdAt: num(row.created_at), livemode: Boolean(row.livemode), payload: row.payload };
}

function deliveryView(delivery: WebhookDeliveryRow, attempts: WebhookAttemptRow[]): EventDeliveryView {
  return {
    endpointId: delivery.endpoint_id,
    url: delivery.url,
    status: delivery.status,
    nextAttemptAtMs: delivery.next_attempt_at === null ? null : num(delivery.next_attempt_at),
    attempts: attempts.map((a) => ({ attemptedAtMs: num(a.attempted_at_ms), statusCode: a.status_code, error: a.error, latencyMs: a.latency_ms })),
  };
}

/**
 * Newest first by recording order (`seq`), keyset cursors as every list. A Shape B `callback_url`
 * event (its `endpoint` set) is a copy of a Payment event in the Shape B body: not an event the
 * Events API lists (Shape A only).
 *
 * The page comes from the index that answers the filter in `seq` order: by object (an object has
 * a few events), by type (one range per type; a wildcard's types are read one range each and
 * merged, each range cut at the page size), or the (merchant, mode) walk, in one statement that
 * reads the rows as it walks (the Shape B copy test reads each row anyway). MariaDB left to itself
 * sorts every event of a type range, so the index is named.
 */
export async function listEvents(dataSource: DataSource, scope: Scope, query: EventListQuery): Promise<{ data: RecordedEvent[]; hasMore: boolean } | CursorNotFound> {
  const repo = dataSource.getRepository(Event);
  const page = await seqPageOf(repo, scope, query);
  if ('cursorNotFound' in page) return page;
  const types = query.types?.length ? [...new Set(query.types)] : [];
  const branches = query.objectId !== undefined || types.length <= 1
    ? [branch(dataSource, scope, query, page, types.length === 1 && query.objectId === undefined ? { type: types[0]! } : { types })]
    : types.map((type) => branch(dataSource, scope, query, page, { type }));
  const columns = 'seq, id, type, created_at, livemode, payload';
  const sql = branches.length === 1
    ? branches[0]!.sql
    : `SELECT ${columns} FROM (${branches.map((b, i) => `SELECT ${columns} FROM (${b.sql}) b${i}`).join(' UNION ALL ')}) merged ORDER BY seq ${page.direction} LIMIT ${page.limit + 1}`;
  const params = branches.flatMap((b) => b.params);
  const { rows, hasMore } = pageRows((await dataSource.query(sql, params)) as EventColumns[], page);
  return { data: rows.map(recordedEvent), hasMore };
}

/** One index range of the list: its rows in page order, cut at one more than the page. */
function branch(dataSource: DataSource, scope: Scope, query: EventListQuery, page: SeqPage, filter: { type: EventType } | { types: EventType[] }): { sql: string; params: unknown[] } {
  const table = dataSource.getMetadata(Event).tableName;
  const conditions = ['e.merchant_id = ?', 'e.livemode = ?', 'e.endpoint IS NULL'];
  const params: unknown[] = [scope.merchantId, scope.livemode ? 1 : 0];
  let index = 'idx_events_scope';
  if (query.objectId !== undefined) {
    conditions.push('e.object_id = ?');
    params.push(query.objectId);
    index = 'idx_events_scope_object';
  }
  if ('type' in filter) {
    conditions.push('e.type = ?');
    params.push(filter.type);
    if (query.objectId === undefined) index = 'idx_events_scope_type';
  } else if (filter.types.length) {
    conditions.push(`e.type IN (${filter.types.map(() => '?').join(', ')})`);
    params.push(...filter.types);
  }
  if (query.createdGte !== undefined) {
    conditions.push('e.created_at >= ?');
    params.push(query.createdGte);
  }
  if (query.createdLt !== undefined) {
    conditions.push('e.created_at < ?');
    params.push(query.createdLt);
  }
  if (page.cursor) {
    conditions.push(`e.${page.cursor.condition.replace(':cursor', '?')}`);
    params.push(page.cursor.seq);
  }
  if (query.deliverySuccess !== undefined) {
    const deliveries = dataSource.getMetadata(WebhookDelivery).tableName;
    const unsuccessful = `EXISTS (SELECT 1 FROM ${deliveries} d WHERE d.event_id = e.id AND d.status <> 'succeeded')`;
    conditions.push(query.deliverySuccess ? `NOT ${unsuccessful}` : unsuccessful);
  }
  const hint = isMysql(dataSource) ? ` FORCE INDEX (${index})` : '';
  return {
    sql: `SELECT e.seq AS seq, e.id AS id, e.type AS type, e.created_at AS created_at, e.livemode AS livemode, e.payload AS payload FROM ${table} e${hint} WHERE ${conditions.join(' AND ')} ORDER BY e.seq ${page.direction} LIMIT ${page.limit + 1}`,
    params,
  };
}

/** The event (of this scope; any scope for an operator) with its deliveries and their attempts. */
export async function findEventDetail(dataSource: DataSource, scope: Scope | null, id: string): Promise<EventDetail | null> {
  const found = await findEventWithAttempts(dataSource, scope, id);
  if (!found) return null;
  const deliveries = await dataSource.getRepository(WebhookDelivery).find({ where: { event_id: id }, order: { seq: 'ASC' } });
  return {
    event: recordedEvent(found.event),
    deliveries: deliveries.map((delivery) => deliveryView(delivery, found.attempts.filter((attempt) => attemptOf(attempt, delivery.id)))),
  };
}

/** The event with every attempt made to deliver it, oldest first (what the admin command shows). */
export async function findEventWithAttempts(dataSource: DataSource, scope: Scope | null, id: string): Promise<{ event: EventRow; attempts: WebhookAttemptRow[] } | null> {
  const event = await dataSource.getRepository(Event).findOneBy(scope ? { id, merchant_id: scope.merchantId, livemode: scope.livemode } : { id });
  if (!event) return null;
  return { event, attempts: await dataSource.getRepository(WebhookAttempt).find({ where: { event_id: id }, order: { seq: 'ASC' } }) };
}

/** The ids of an event's deliveries and their endpoints (null: a Shape B `callback_url`), oldest first. */
export async function deliveriesOfEvent(dataSource: DataSource, eventId: string): Promise<Array<{ id: string; endpointId: string | null }>> {
  const rows = await dataSource.getRepository(WebhookDelivery).find({ select: { id: true, endpoint_id: true }, where: { event_id: eventId }, order: { seq: 'ASC' } });
  return rows.map((row) => ({ id: row.id, endpointId: row.endpoint_id }));
}

/** An attempt counts for a delivery made under its id, or under a resend of it (that id and a suffix). */
function attemptOf(attempt: WebhookAttemptRow, deliveryId: string): boolean {
  return attempt.delivery_id === deliveryId || attempt.delivery_id.startsWith(`${deliveryId}_`);
}

/** The newest events of a merchant, both modes (the admin command's list). */
export async function latestEventsOfMerchant(dataSource: DataSource, merchantId: string, limit: number): Promise<Array<{ event: EventRow; attempts: WebhookAttemptRow[] }>> {
  const events = await dataSource.getRepository(Event).find({ where: { merchant_id: merchantId }, order: { seq: 'DESC' }, take: limit });
  const attempts = events.length
    ? await dataSource.getRepository(WebhookAttempt).find({ where: { event_id: In(events.map((e) => e.id)) }, order: { seq: 'ASC' } })
    : [];
  return events.map((event) => ({ event, attempts: attempts.filter((a) => a.event_id === event.id) }));
}

/**
 * Deletes the events created before `cutoffSeconds`, with their deliveries and attempts, `batch`
 * events per transaction so no statement holds many locks or a long undo log. Returns how many.
 * The attempts and deliveries go first: a purge that dies between batches leaves no orphans.
 */
export async function purgeEventsBefore(dataSource: DataSource, cutoffSeconds: number, batch: number): Promise<number> {
  let purged = 0;
  for (;;) {
    const old = await dataSource.getRepository(Event).find({ select: { seq: true, id: true }, where: { created_at: LessThan(cutoffSeconds) }, take: batch });
    if (!old.length) return purged;
    const ids = old.map((e) => e.id);
    await dataSource.transaction(async (manager) => {
      await manager.getRepository(WebhookAttempt).delete({ event_id: In(ids) });
      await manager.getRepository(WebhookDelivery).delete({ event_id: In(ids) });
      await manager.getRepository(Event).delete({ seq: In(old.map((e) => e.seq)) });
    });
    purged += old.length;
    if (old.length < batch) return purged;
  }
}
