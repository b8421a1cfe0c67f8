// Prometheus metrics of a worker process: provider latency, webhook delivery results and status
// changes of Payments, Refunds and Payouts, served by every worker (workers/worker.ts) on
// WORKER_METRICS_PORT. Temporal's own worker metrics come from the SDK runtime on a separate port.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ProviderClient } from '../provider/types';

export class WorkerMetrics {
  readonly registry = new Registry();
  readonly providerLatency = new Histogram({
    name: 'provider_request_duration_seconds', help: 'Latency of acquirer calls by operation and outcome kind.',
    labelNames: ['operation', 'outcome'] as const, registers: [this.registry],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
  });
  readonly webhookDeliveries = new Counter({
    name: 'webhook_delivery_attempts_total', help: 'Webhook delivery attempts by result (delivered, failed, refused, timeout).',
    labelNames: ['result'] as const, registers: [this.registry],
  });
  readonly statusChanges = new Counter({
    name: 'workflow_status_changes_total', help: 'Status changes written to the read models, by object type and status.',
    labelNames: ['object', 'status'] as const, registers: [this.registry],
  });

  readonly cvcsForgotten = new Counter({
    name: 'vault_cvcs_forgotten_total', help: 'CVCs the vault sweep forgot because no authorization could still need them (a card orphaned by a process that died).',
    registers: [this.registry],
  });

  readonly pollingSuspensions = new Counter({
    name: 'worker_polling_suspensions_total', help: 'Times this worker stopped taking tasks because its database did not answer.',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}

/** Wraps a provider client so every call is timed, labelled with the kind of answer. */
export function measuredProvider(client: ProviderClient, metrics: WorkerMetrics): ProviderClient {
  const wrap = <A extends unknown[], R extends { kind: string; cause?: string }>(operation: string, fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    const end = metrics.providerLatency.startTimer({ operation });
    try {
      const result = await fn(...args);
      // An answer by its kind; a request without one by what happened (rate_limited, timeout...).
      end({ outcome: result.cause ?? result.kind });
      return result;
    } catch (error) {
      end({ outcome: 'error' });
      throw error;
    }
  };
  return {
    authorize: wrap('authorize', client.authorize.bind(client)),
    getAuthorization: wrap('get_authorization', client.getAuthorization.bind(client)),
    getAuthorizationByKey: wrap('get_authorization', client.getAuthorizationByKey.bind(client)),
    refund: wrap('refund', client.refund.bind(client)),
    getRefund: wrap('get_refund', client.getRefund.bind(client)),
    payout: wrap('payout', client.payout.bind(client)),
    getPayoutByKey: wrap('get_payout', client.getPayoutByKey.bind(client)),
  };
}
