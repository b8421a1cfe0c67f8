// /v1/payments: Direct and Hosted Payment Page payments.
import type { ApiResponse, HttpClient } from '../http';
import { ListPromise } from '../list';
import type { components } from '../generated/openapi';
import type { HostedPaymentCreateParams, Payment, PaymentCreateParams, PaymentListParams, RequestOptions } from '../types';

export type PaymentList = components['schemas']['PaymentList'];

export class Payments {
  constructor(private readonly http: HttpClient) {}

  /** A Direct Payment: answered after server-side authentication (`PROCESSING`, `REQUIRES_ACTION` or `FAILED`). */
  create(params: PaymentCreateParams, options: RequestOptions = {}): Promise<ApiResponse<Payment>> {
    return this.http.request({ method: 'POST', path: '/v1/payments', body: params, idempotencyKey: options.idempotencyKey });
  }

  /** A Hosted Payment Page payment: redirect the customer to `next_action.redirect_url`. */
  createHosted(params: HostedPaymentCreateParams, options: RequestOptions = {}): Promise<ApiResponse<Payment>> {
    return this.http.request({ method: 'POST', path: '/v1/payments/hpp', body: params, idempotencyKey: options.idempotencyKey });
  }

  retrieve(id: string): Promise<ApiResponse<Payment>> {
    return this.http.request({ method: 'GET', path: `/v1/payments/${encodeURIComponent(id)}` });
  }

  /** Newest first. Await it for one page, or iterate it (`for await`) for every Payment. */
  list(params: PaymentListParams = {}): ListPromise<Payment, PaymentList, PaymentListParams> {
    return new ListPromise((query) => this.http.request<PaymentList>({ method: 'GET', path: '/v1/payments', query }), params);
  }
}
