// The webhook endpoint object (docs/webhooks.md, "Endpoints"; Shape A only). The secret appears
// only in the answers of a create and of a rotation.
import type { WebhookEndpointRow } from '../db/entities';

export function serializeWebhookEndpoint(endpoint: WebhookEndpointRow, secret?: string) {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint' as const,
    url: endpoint.url,
    enabled_events: JSON.parse(endpoint.enabled_events) as string[],
    description: endpoint.description,
    api_version: endpoint.api_version,
    status: endpoint.status,
    created_at: Math.floor(endpoint.created_at / 1000),
    livemode: endpoint.livemode,
    ...(secret === undefined ? {} : { secret }),
  };
}

export function serializeDeletedWebhookEndpoint(id: string) {
  return { id, object: 'webhook_endpoint' as const, deleted: true as const };
}
