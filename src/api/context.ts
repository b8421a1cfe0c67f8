// What the middleware chain learns about a request, and what every handler may rely on.
import type { Router, RouterContext } from '@koa/router';
import type { Logger } from '../observability/logger';
import type { ApiVersion, Shape } from '../representations/versions';
import type { AuthContext } from '../services/context';

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

/** What the process tells the app about its own state: `draining` once SIGTERM began the graceful stop. */
export interface ApiLifecycle {
  draining: boolean;
}

export type AppRouter = Router<RequestState>;
export type AppContext = RouterContext<RequestState>;

export function authOf(ctx: { state: RequestState }): AuthContext {
  if (!ctx.state.auth) throw new Error('route used without the authenticate middleware');
  return ctx.state.auth;
}
