// What the middleware chain learns about a request, and what every handler may rely on.
import type { Router, RouterContext } from '@koa/router';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { MerchantRow, Mode } from '../db/entities';
import type { Logger } from '../observability/logger';
import type { ApiMetrics } from '../observability/metrics';
import type { TokenBuckets } from '../domain/rate-limit';
import type { CardVaultStore } from '../vault/card-vault';
import type { SecretBox } from '../vault/crypto';
import type { ApiVersion, Shape } from './versions';

export interface AuthContext {
  apiKeyId: string;
  merchant: MerchantRow;
  mode: Mode;
  livemode: boolean;
  canRefund: boolean;
}

export interface RequestState {
  requestId: string;
  logger: Logger;
  /** When the body must have arrived by (epoch ms), counted from the headers' arrival. */
  bodyDeadline: { at: number; afterMs: number };
  /** The shape that answers, errors included. Decided by the route, then by the version. */
  shape: Shape;
  version?: ApiVersion;
  auth?: AuthContext;
  idempotencyKey?: string;
  body?: unknown;
  routeName?: string;
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

export type AppRouter = Router<RequestState>;
export type AppContext = RouterContext<RequestState>;

export function authOf(ctx: { state: RequestState }): AuthContext {
  if (!ctx.state.auth) throw new Error('route used without the authenticate middleware');
  return ctx.state.auth;
}
