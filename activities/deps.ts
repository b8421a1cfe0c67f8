// What activities need from the outside world, built once per worker process.
import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Logger } from '../src/observability/logger';
import type { WorkerMetrics } from '../src/observability/worker-metrics';
import type { ProviderClient } from '../src/provider/types';
import type { CardVaultStore } from '../src/vault/card-vault';
import type { SecretBox } from '../src/vault/crypto';
import type { DestinationPolicy } from '../src/webhooks/destination';
import type { WebhookRelay } from '../src/webhooks/relay';
import type { WebhookSecrets } from '../src/webhooks/secrets';

export interface ActivityDeps {
  dataSource: DataSource;
  vault: CardVaultStore;
  /** Seals hosted page tokens in the Payment read model (read-models/payments.ts). */
  secretBox: SecretBox;
  /** Test mode talks to the sandbox; live mode to the live provider when one is configured. */
  providers: { test: ProviderClient; live: ProviderClient | null };
  logger: Logger;
  /** Starts callback delivery workflows for deliveries whose first attempt failed. */
  temporal: Client;
  taskQueue: string;
  webhookSecrets: WebhookSecrets;
  webhooks: { attemptTimeoutMs: number; initialRetrySeconds: number; retrySpanSeconds: number; destinations: DestinationPolicy };
  /** Makes each recorded event's first delivery attempt (src/webhooks/relay.ts). */
  relay: WebhookRelay;
  metrics: WorkerMetrics;
}

export function providerFor(deps: ActivityDeps, livemode: boolean): ProviderClient {
  const client = livemode ? deps.providers.live : deps.providers.test;
  if (!client) throw new Error('no live provider is configured');
  return client;
}

/** The card a vault token seals; a token with no card fails the activity for good (`CardTokenMissing`). */
export async function vaultedCard(deps: ActivityDeps, token: string, missing: string) {
  const card = await deps.vault.reveal(token);
  if (!card) throw ApplicationFailure.nonRetryable(missing, 'CardTokenMissing');
  return card;
}
