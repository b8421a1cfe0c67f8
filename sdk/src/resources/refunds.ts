// /v1/refunds. A Refund is read through its Payment's `refunds`.
import type { ApiResponse, HttpClient } from '../http';
import type { Refund, RefundCreateParams, RequestOptions } from '../types';

export class Refunds {
  constructor(private readonly http: HttpClient) {}

  /** All or part of a `SUCCEEDED` Payment; `PROCESSING`, or `FAILED` when rejected at submission. */
  create(params: RefundCreateParams, options: RequestOptions = {}): Promise<ApiResponse<Refund>> {
    return this.http.request({ method: 'POST', path: '/v1/refunds', body: params, idempotencyKey: options.idempotencyKey });
  }
}
