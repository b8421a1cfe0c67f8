// /v1/payouts: payouts to Visa and Mastercard cards.
import type { ApiResponse, HttpClient } from '../http';
import { ListPromise } from '../list';
import type { components } from '../generated/openapi';
import type { Payout, PayoutCreateParams, PayoutListParams, RequestOptions } from '../types';

export type PayoutList = components['schemas']['PayoutList'];

export class Payouts {
  constructor(private readonly http: HttpClient) {}

  /** An uncertain provider answer is a `PENDING` Payout, not an error. */
  create(params: PayoutCreateParams, options: RequestOptions = {}): Promise<ApiResponse<Payout>> {
    return this.http.request({ method: 'POST', path: '/v1/payouts', body: params, idempotencyKey: options.idempotencyKey });
  }

  retrieve(id: string): Promise<ApiResponse<Payout>> {
    return this.http.request({ method: 'GET', path: `/v1/payouts/${encodeURIComponent(id)}` });
  }

  /** Newest first, with `search` and filters. Await it for one page (with `total_count`), or iterate it for every Payout. */
  list(params: PayoutListParams = {}): ListPromise<Payout, PayoutList, PayoutListParams> {
    return new ListPromise((query) => this.http.request<PayoutList>({ method: 'GET', path: '/v1/payouts', query }), params);
  }
}
