// @card-payments/sdk: the client, its errors, and the types of the API (version 2025-09-01).
export { PaymentsClient, type PaymentsClientOptions } from './client';
export { PaymentsApiError, PaymentsConnectionError, WebhookSignatureError } from './error';
export type { ApiResponse, ResponseInfo } from './http';
export { ListPromise, type Page } from './list';
export { Webhooks, type WebhookHeaders } from './webhooks';
export * from './types';
export type { components, operations, paths, webhooks as webhookOperations } from './generated/openapi';
