// The webhook endpoint object (docs/webhooks.md, "Endpoints"; Shape A only). The secret appears
// only in the answers of a create and of a rotation.
import type { WebhookEndpointView } from '../domain/webhook-endpoints';

export function serializeWebhookEndpoint(endpoint: WebhookEndpointView, secret?: string) {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint' as const,
    url: endpoint.url,
    enabled_events: endpoint.enabledEvents,
    description: endpoint.description,
    api_version: endpoint.apiVersion,
    status: endpoint.status,
    disabled_reason: endpoint.disabledReason,
    created_at: endpoint.createdAt,
    livemode: endpoint.livemode,
    ...(secret === undefined ? {} : { secret }),
  };
}

export function serializeDeletedWebhookEndpoint(id: string) {
  return { id, object: 'webhook_endpoint' as const, deleted: true as const };
}
