// Prometheus metrics of the API process: GET /metrics on the public port, or on API_METRICS_PORT.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class ApiMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'http_requests_total', help: 'HTTP requests by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const, registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'http_request_duration_seconds', help: 'HTTP request latency by route.',
    labelNames: ['route', 'method', 'status'] as const, registers: [this.registry],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  /** Attempts of `POST /v1/events/{id}/retry`, made by the API itself (the workers count theirs). */
  readonly webhookDeliveries = new Counter({
    name: 'webhook_delivery_attempts_total', help: 'Webhook delivery attempts of event retries by result (delivered, failed, refused, timeout).',
    labelNames: ['result'] as const, registers: [this.registry],
  });
  readonly workflowOutcomes = new Counter({
    name: 'workflow_outcomes_total', help: 'Statuses answered by synchronous workflow operations.',
    labelNames: ['workflow', 'status'] as const, registers: [this.registry],
  });
  /** 1 while the shared request-limit store (REDIS_URL) answers; 0 while each process limits alone. */
  readonly rateLimitStoreUp = new Gauge({
    name: 'rate_limit_store_up', help: 'Whether the Redis of the shared request limits answers (always 0 without REDIS_URL).',
    registers: [this.registry],
  });
  readonly rateLimitStoreFallbacks = new Counter({
    name: 'rate_limit_store_fallbacks_total', help: 'Request-limit checks counted in the process because the Redis of REDIS_URL did not answer in time.',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
