// What every service works with: the process's dependencies, and who is asking (the authenticated
// API key and its merchant). The API builds both; nothing here knows about HTTP.
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { MerchantRow, Mode } from '../db/entities';
import type { Logger } from '../observability/logger';
import type { ApiMetrics } from '../observability/metrics';
import type { CardVaultStore } from '../vault/card-vault';
import type { SecretBox } from '../vault/crypto';
import type { RequestLimits } from '../web/request-limits';

export interface AuthContext {
  apiKeyId: string;
  merchant: MerchantRow;
  mode: Mode;
  livemode: boolean;
  /**
   * A restricted key (admin `key create --no-refunds`): no refunds, payouts, webhook endpoint changes
   * or event resends (docs/api-reference.md, "Restricted keys"). Stored as the key's `can_refund`.
   */
  restricted: boolean;
}

export interface Deps {
  config: Config;
  dataSource: DataSource;
  temporal: Client;
  vault: CardVaultStore;
  secretBox: SecretBox;
  logger: Logger;
  metrics: ApiMetrics;
  /** Per-API-key and per-address request limits (shared across replicas with REDIS_URL). */
  rateLimiter: RequestLimits;
}

/** The account and mode an API key sees: every read and write of a request stays inside it. */
export function scopeOf(auth: AuthContext): { merchantId: string; livemode: boolean } {
  return { merchantId: auth.merchant.id, livemode: auth.livemode };
}
