// /v1/webhook_endpoints: where events are sent, each endpoint with its own secret.
import type { ApiResponse, HttpClient } from '../http';
import { ListPromise } from '../list';
import type { components } from '../generated/openapi';
import type {
  DeletedWebhookEndpoint, RequestOptions, WebhookEndpoint, WebhookEndpointCreateParams, WebhookEndpointListParams,
  WebhookEndpointRotateSecretParams, WebhookEndpointUpdateParams, WebhookEndpointWithSecret,
} from '../types';

export type WebhookEndpointList = components['schemas']['WebhookEndpointList'];

const endpointPath = (id: string) => `/v1/webhook_endpoints/${encodeURIComponent(id)}`;

export class WebhookEndpoints {
  constructor(private readonly http: HttpClient) {}

  /** The answer is the only one (with a rotation's) that carries `secret`: store it. */
  create(params: WebhookEndpointCreateParams, options: RequestOptions = {}): Promise<ApiResponse<WebhookEndpointWithSecret>> {
    return this.http.request({ method: 'POST', path: '/v1/webhook_endpoints', body: params, idempotencyKey: options.idempotencyKey });
  }

  list(params: WebhookEndpointListParams = {}): ListPromise<WebhookEndpoint, WebhookEndpointList, WebhookEndpointListParams> {
    return new ListPromise((query) => this.http.request<WebhookEndpointList>({ method: 'GET', path: '/v1/webhook_endpoints', query }), params);
  }

  retrieve(id: string): Promise<ApiResponse<WebhookEndpoint>> {
    return this.http.request({ method: 'GET', path: endpointPath(id) });
  }

  update(id: string, params: WebhookEndpointUpdateParams, options: RequestOptions = {}): Promise<ApiResponse<WebhookEndpoint>> {
    return this.http.request({ method: 'POST', path: endpointPath(id), body: params, idempotencyKey: options.idempotencyKey });
  }

  del(id: string): Promise<ApiResponse<DeletedWebhookEndpoint>> {
    return this.http.request({ method: 'DELETE', path: endpointPath(id) });
  }

  /** A new secret; the older ones keep signing for `grace_period_seconds` (default a day). */
  rotateSecret(id: string, params?: WebhookEndpointRotateSecretParams, options: RequestOptions = {}): Promise<ApiResponse<WebhookEndpointWithSecret>> {
    return this.http.request({ method: 'POST', path: `${endpointPath(id)}/rotate_secret`, body: params, idempotencyKey: options.idempotencyKey });
  }
}
