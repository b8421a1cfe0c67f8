// /v1/events: every event of the last 30 days at least, with its deliveries.
import type { ApiResponse, HttpClient } from '../http';
import { ListPromise } from '../list';
import type { components } from '../generated/openapi';
import type { Event, EventListParams, EventRetryParams, EventWithDeliveries, RequestOptions } from '../types';

export type EventList = components['schemas']['EventList'];

export class Events {
  constructor(private readonly http: HttpClient) {}

  /** Newest first. Await it for one page, or iterate it for every event. */
  list(params: EventListParams = {}): ListPromise<Event, EventList, EventListParams> {
    return new ListPromise((query) => this.http.request<EventList>({ method: 'GET', path: '/v1/events', query }), params);
  }

  retrieve(id: string): Promise<ApiResponse<EventWithDeliveries>> {
    return this.http.request({ method: 'GET', path: `/v1/events/${encodeURIComponent(id)}` });
  }

  /** Sends the event again to its endpoints (or to `webhook_endpoint_id` only). */
  retry(id: string, params?: EventRetryParams, options: RequestOptions = {}): Promise<ApiResponse<EventWithDeliveries>> {
    return this.http.request({ method: 'POST', path: `/v1/events/${encodeURIComponent(id)}/retry`, body: params, idempotencyKey: options.idempotencyKey });
  }
}
