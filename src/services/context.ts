// What every service works with: the process's dependencies, and who is asking (the authenticated
// API key and its merchant). The API builds both; nothing here knows about HTTP.
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { MerchantRow, Mode } from '../db/entities';
import type { Logger } from '../observability/logger';
import type { ApiMetrics } from '../observability/metrics';
import type { TokenBuckets } from '../domain/rate-limit';
import type { CardVaultStore } from '../vault/card-vault';
import type { SecretBox } from '../vault/crypto';

export interface AuthContext {
  apiKeyId: string;
  merchant: MerchantRow;
  mode: Mode;
  livemode: boolean;
  canRefund: boolean;
}

export interface Deps {
  config: Config;
  dataSource: DataSource;
  temporal: Client;
  vault: CardVaultStore;
  secretBox: SecretBox;
  logger: Logger;
  metrics: ApiMetrics;
  /** Per-API-key request rate limit of this API process. */
  rateLimiter: TokenBuckets;
}

/** The account and mode an API key sees: every read and write of a request stays inside it. */
export function scopeOf(auth: AuthContext): { merchantId: string; livemode: boolean } {
  return { merchantId: auth.merchant.id, livemode: auth.livemode };
}
