// The sandbox acquirer as a Koa app: JSON API under /v1, 3D Secure pages under /3ds, and test
// introspection and fault injection under /_sandbox (behind a bearer token). State lives in memory
// only (see state.ts); the HTTP API is described in README.md next to this file.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import Koa from 'koa';
import { Router } from '@koa/router';
import getRawBody from 'raw-body';
import { httpLimits, type HttpLimits } from '../../config';
import { createHttpServer, listen } from '../../web/transport';
import { Acquirer, BAD_GATEWAY_HTML, type Answer } from './acquirer';
import { Notifier } from './notify';
import { challengePage, devicePage, gonePage, notFoundPage } from './pages';
import {
  clearState, createState, noFaults, type Faults, type SandboxOptions, type SandboxState,
} from './state';

export type { SandboxOptions, SandboxState } from './state';

export const DEFAULT_TIMEOUT_DELAY_MS = 15_000;
export const DEFAULT_NOTIFY_TIMEOUT_MS = 10_000;
export const DEFAULT_NOTIFY_RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000];

const MAX_KEY_LENGTH = 255;

/** Sleeps that close() can cut short, so a held-back answer never keeps the process alive. */
class Sleeper {
  private readonly pending = new Set<{ timer: NodeJS.Timeout; resolve: (slept: boolean) => void }>();

  /** Resolves true when the time has passed, false when the sleep was cancelled. */
  sleep(ms: number): Promise<boolean> {
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.pending.delete(entry);
          resolve(true);
        }, ms),
        resolve,
      };
      this.pending.add(entry);
    });
  }

  /** Calls sleeping now. */
  get size(): number {
    return this.pending.size;
  }

  /** Ends every sleep now: `slept` says whether the sleepers carry on as if the time had passed. */
  wakeAll(slept = true): void {
    for (const entry of this.pending) {
      clearTimeout(entry.timer);
      entry.resolve(slept);
    }
    this.pending.clear();
  }
}

function write(ctx: Koa.Context, answer: Answer): void {
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers ?? {})) ctx.set(name, value);
  if (answer.html !== undefined) {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = answer.html;
  } else {
    ctx.body = answer.json ?? {};
  }
}

function faultAnswer({ failStatus: status, retryAfterSeconds }: Faults): Answer {
  const retryAfter: Record<string, string> = retryAfterSeconds === null ? {} : { 'Retry-After': String(retryAfterSeconds) };
  switch (status) {
    case 429: return { status, headers: { 'Retry-After': '1', ...retryAfter }, json: { error: 'rate_limited' } };
    case 502: return { status, html: BAD_GATEWAY_HTML };
    case 503: return { status, headers: retryAfter, json: { error: 'service_unavailable' } };
    default: return { status, json: { error: 'internal_error' } };
  }
}

async function readBody(ctx: Koa.Context): Promise<string | null> {
  try {
    return await getRawBody(ctx.req, { limit: '100kb', encoding: 'utf-8' });
  } catch {
    return null;
  }
}

type JsonBody = { ok: true; value: unknown } | { ok: false; answer: Answer };

async function readJson(ctx: Koa.Context): Promise<JsonBody> {
  const raw = 'rawBody' in ctx.state ? (ctx.state.rawBody as string | null) : await readBody(ctx);
  if (raw === null) return { ok: false, answer: { status: 400, json: { error: 'invalid_body' } } };
  try {
    return { ok: true, value: raw === '' ? undefined : JSON.parse(raw) };
  } catch {
    // The parser's message quotes the input, which may hold card data: never surface it.
    return { ok: false, answer: { status: 400, json: { error: 'invalid_json' } } };
  }
}

/** Only the name: error messages can quote request data. */
function errorName(err: unknown): string {
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : 'error';
}

function idempotencyKey(ctx: Koa.Context): string | undefined {
  const value = ctx.get('Idempotency-Key').trim();
  return value === '' || value.length > MAX_KEY_LENGTH ? undefined : value;
}

function queryParam(ctx: Koa.Context, name: string): string | undefined {
  const value = ctx.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function count(value: unknown): number | null {
  if (value === undefined) return 0;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/**
 * The record a provider call is about, when the acquirer has one: by the id in its path, else by
 * its idempotency key (the header of a submission, the query of a look-up by key).
 */
function recordOfCall(state: SandboxState, ctx: Koa.Context): { createdAt: number } | undefined {
  const [, , kind, id] = ctx.path.split('/');
  const maps: ReadonlyMap<string, { createdAt: number }>[] | null = kind === 'authorizations' ? [state.authorizationsById, state.authorizations]
    : kind === 'refunds' ? [state.refundsById, state.refunds]
      : kind === 'payouts' ? [state.payoutsById, state.payouts]
        : null;
  if (maps === null) return undefined;
  if (id) return maps[0].get(id);
  const key = ctx.method === 'POST' ? idempotencyKey(ctx) : queryParam(ctx, 'idempotency_key');
  return key === undefined ? undefined : maps[1].get(key);
}

function parseFaults(body: unknown, nowMs: number): Faults | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const input = body as Record<string, unknown>;
  const faults = noFaults();
  const latency = count(input.latency_ms);
  const failNext = count(input.fail_next);
  const resetNext = count(input.reset_next);
  const resetAfterNext = count(input.reset_after_next);
  const duplicateNext = count(input.duplicate_next);
  if (latency === null || failNext === null || resetNext === null || resetAfterNext === null || duplicateNext === null) {
    return null;
  }
  if (input.fail_status !== undefined) {
    if (input.fail_status !== 429 && input.fail_status !== 500 && input.fail_status !== 502 && input.fail_status !== 503) {
      return null;
    }
    faults.failStatus = input.fail_status;
  }
  if (input.retry_after !== undefined) {
    const retryAfter = count(input.retry_after);
    if (retryAfter === null) return null;
    faults.retryAfterSeconds = retryAfter;
  }
  if (input.duplicate_answer !== undefined && typeof input.duplicate_answer !== 'boolean') return null;
  // Optional scope, so background traffic (payouts still polling, say) cannot use up a test's faults.
  if (input.path_prefix !== undefined) {
    if (typeof input.path_prefix !== 'string' || !input.path_prefix.startsWith('/v1/')) return null;
    faults.pathPrefix = input.path_prefix;
  }
  if (input.method !== undefined) {
    if (input.method !== 'GET' && input.method !== 'POST') return null;
    faults.method = input.method;
  }
  if (input.new_objects_only !== undefined && typeof input.new_objects_only !== 'boolean') return null;
  if (input.new_objects_only === true) faults.newObjectsSince = nowMs;
  faults.latencyMs = latency;
  faults.failNext = failNext;
  faults.resetNext = resetNext;
  faults.resetAfterNext = resetAfterNext;
  faults.duplicateNext = duplicateNext + (input.duplicate_answer === true ? 1 : 0);
  return faults;
}

function faultsJson(faults: Faults): Record<string, number | string | boolean | null> {
  return {
    latency_ms: faults.latencyMs,
    fail_next: faults.failNext,
    fail_status: faults.failStatus,
    retry_after: faults.retryAfterSeconds,
    reset_next: faults.resetNext,
    reset_after_next: faults.resetAfterNext,
    duplicate_next: faults.duplicateNext,
    path_prefix: faults.pathPrefix,
    method: faults.method,
    new_objects_only: faults.newObjectsSince !== null,
  };
}

const PAGE_HEADERS = {
  // The 3DS page takes the shopper's decision: another site must not frame it and click for them.
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

function page(ctx: Koa.Context, status: number, html: string, nonce?: string): void {
  ctx.status = status;
  ctx.set(PAGE_HEADERS);
  // No form-action directive: browsers apply it to the redirect after the POST, which goes to
  // the merchant's return_url on another origin.
  const script = nonce ? `'nonce-${nonce}'` : "'none'";
  ctx.set('Content-Security-Policy', `default-src 'none'; style-src 'unsafe-inline'; script-src ${script}; base-uri 'none'; frame-ancestors 'none'`);
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Guards the control endpoints: reset, faults and records would let anyone who reaches the port
 * (a webhook aimed at it, say) wipe or skew the acquirer's state. Off without a token.
 */
function controlAccess(token: string | null | undefined): Koa.Middleware {
  const expected = token ? digest(`Bearer ${token}`) : null;
  return async (ctx, next) => {
    if (expected === null) return write(ctx, { status: 404, json: { error: 'not_found' } });
    // Digests have one length, so the comparison takes the same time whatever was sent.
    if (!timingSafeEqual(digest(ctx.get('Authorization')), expected)) {
      return write(ctx, { status: 401, headers: { 'WWW-Authenticate': 'Bearer realm="sandbox-control"' }, json: { error: 'unauthorized' } });
    }
    await next();
  };
}

export interface SandboxApp {
  app: Koa;
  state: SandboxState;
  /** Cancels background notification retries and held-back answers. */
  stop(): void;
}

export function createSandboxApp(options: SandboxOptions): SandboxApp {
  const log = options.log ?? (() => undefined);
  const state = createState(options.publicUrl ?? null);
  const sleeper = new Sleeper();
  const now = options.now ?? Date.now;
  const acquirer = new Acquirer(state, {
    settleMs: options.settleMs,
    timeoutDelayMs: options.timeoutDelayMs ?? DEFAULT_TIMEOUT_DELAY_MS,
    now,
  });
  const notifier = new Notifier(state, {
    secret: options.notifySecret,
    timeoutMs: options.notifyTimeoutMs ?? DEFAULT_NOTIFY_TIMEOUT_MS,
    retryDelaysMs: options.notifyRetryDelaysMs ?? DEFAULT_NOTIFY_RETRY_DELAYS_MS,
    log,
  });

  const app = new Koa();
  // Our own listener replaces Koa's default one, which would print whole error objects.
  app.on('error', (err: unknown) => log(`sandbox: request error: ${errorName(err)}`));

  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      log(`sandbox: ${ctx.method} ${ctx.path} failed: ${errorName(err)}`);
      write(ctx, { status: 500, json: { error: 'internal_error' } });
    }
  });

  // Fault injection, applied to provider API calls only.
  app.use(async (ctx, next) => {
    const scope = state.faults;
    if (!ctx.path.startsWith(scope.pathPrefix) || (scope.method !== null && ctx.method !== scope.method)) return next();
    if (scope.newObjectsSince !== null && (recordOfCall(state, ctx)?.createdAt ?? Infinity) < scope.newObjectsSince) return next();
    if (state.faults.latencyMs > 0) {
      // Take the whole request first, as an acquirer would: a client that gives up during the
      // delay does not stop it being processed.
      if (ctx.method === 'POST') ctx.state.rawBody = await readBody(ctx);
      if (!(await sleeper.sleep(state.faults.latencyMs))) {
        // A reset during the delay: the call is dropped unprocessed, not left to land in later state.
        ctx.respond = false;
        ctx.req.socket.destroy();
        return;
      }
    }
    const faults = state.faults; // read after the sleep: the set may have been replaced meanwhile
    if (faults.resetNext > 0) {
      faults.resetNext -= 1;
      ctx.respond = false;
      ctx.req.socket.destroy();
      return;
    }
    if (faults.failNext > 0) {
      faults.failNext -= 1;
      write(ctx, faultAnswer(faults));
      return;
    }
    if (faults.duplicateNext > 0) {
      faults.duplicateNext -= 1;
      ctx.state.duplicate = true;
    }
    if (faults.resetAfterNext > 0) {
      faults.resetAfterNext -= 1;
      await next();
      ctx.respond = false;
      ctx.req.socket.destroy();
      return;
    }
    await next();
  });

  async function send(ctx: Koa.Context, handle: () => Answer): Promise<void> {
    let answer = handle();
    // A duplicated delivery of the same request: the acquirer sees it twice.
    if (ctx.state.duplicate === true) answer = handle();
    if (answer.delayMs) await sleeper.sleep(answer.delayMs);
    write(ctx, answer);
  }

  const router = new Router();

  router.post('/v1/authorizations', async (ctx) => {
    const body = await readJson(ctx);
    if (!body.ok) return write(ctx, body.answer);
    await send(ctx, () => acquirer.authorize(idempotencyKey(ctx), body.value, ctx.origin));
  });
  router.get('/v1/authorizations', (ctx) => send(ctx, () => acquirer.getAuthorizationByKey(queryParam(ctx, 'idempotency_key'))));
  router.get('/v1/authorizations/:id', (ctx) => send(ctx, () => acquirer.getAuthorization(ctx.params.id)));

  router.post('/v1/refunds', async (ctx) => {
    const body = await readJson(ctx);
    if (!body.ok) return write(ctx, body.answer);
    await send(ctx, () => acquirer.refund(idempotencyKey(ctx), body.value));
  });
  router.get('/v1/refunds/:id', (ctx) => send(ctx, () => acquirer.getRefund(ctx.params.id)));

  router.post('/v1/payouts', async (ctx) => {
    const body = await readJson(ctx);
    if (!body.ok) return write(ctx, body.answer);
    await send(ctx, () => acquirer.payout(idempotencyKey(ctx), body.value));
  });
  router.get('/v1/payouts', (ctx) => send(ctx, () => acquirer.getPayoutByKey(queryParam(ctx, 'idempotency_key'))));
  router.get('/v1/payouts/:id', (ctx) => send(ctx, () => acquirer.getPayout(ctx.params.id)));

  router.get('/3ds/:authId/:token', (ctx) => {
    const found = acquirer.lookupStep(ctx.params.authId, ctx.params.token);
    if (found.kind === 'not_found') return page(ctx, 404, notFoundPage());
    if (found.kind === 'gone') return page(ctx, 410, gonePage(found.record.returnUrl));
    if (found.step === 'challenge') return page(ctx, 200, challengePage(found.record, ctx.path));
    const nonce = randomBytes(16).toString('base64');
    return page(ctx, 200, devicePage(found.record, ctx.path, nonce), nonce);
  });

  router.post('/3ds/:authId/:token', async (ctx) => {
    const raw = await readBody(ctx);
    const outcome = raw === null ? '' : new URLSearchParams(raw).get('outcome') ?? '';
    const result = acquirer.completeStep(ctx.params.authId, ctx.params.token, outcome, ctx.origin);
    if (result.kind === 'not_found') return page(ctx, 404, notFoundPage());
    if (result.kind === 'gone') return page(ctx, 410, gonePage(result.record.returnUrl));
    if (result.kind === 'bad_outcome') {
      if (result.step === 'challenge') {
        return page(ctx, 400, challengePage(result.record, ctx.path, 'Choose Authenticate or Fail.'));
      }
      const nonce = randomBytes(16).toString('base64');
      return page(ctx, 400, devicePage(result.record, ctx.path, nonce), nonce);
    }
    // The service hears of the change before the browser gets there; a failed delivery is
    // retried in the background and does not hold the shopper.
    await notifier.notify(result.record);
    ctx.set(PAGE_HEADERS);
    ctx.status = 303;
    ctx.redirect(result.location);
    ctx.status = 303;
  });

  router.get('/health', (ctx) => write(ctx, { status: 200, json: { status: 'ok' } }));

  const control = controlAccess(options.controlToken);
  router.get('/_sandbox/records', control, (ctx) => {
    write(ctx, { status: 200, json: acquirer.records(queryParam(ctx, 'reference')) });
  });
  router.post('/_sandbox/reset', control, (ctx) => {
    clearState(state);
    notifier.cancelRetries();
    sleeper.wakeAll(false);
    write(ctx, { status: 200, json: { reset: true } });
  });
  // `held_calls`: calls delayed right now (injected latency or a delayed answer).
  router.get('/_sandbox/faults', control, (ctx) => write(ctx, { status: 200, json: { ...faultsJson(state.faults), held_calls: sleeper.size } }));
  router.post('/_sandbox/faults', control, async (ctx) => {
    const body = await readJson(ctx);
    if (!body.ok) return write(ctx, body.answer);
    const faults = parseFaults(body.value, now());
    if (!faults) return write(ctx, { status: 400, json: { error: 'invalid_faults' } });
    state.faults = faults;
    write(ctx, { status: 200, json: faultsJson(faults) });
  });
  router.delete('/_sandbox/faults', control, (ctx) => {
    state.faults = noFaults();
    write(ctx, { status: 200, json: faultsJson(state.faults) });
  });

  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use((ctx) => {
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.path.startsWith('/3ds/')) return page(ctx, 404, notFoundPage());
    write(ctx, { status: 404, json: { error: 'not_found' } });
  });

  return {
    app,
    state,
    stop: () => {
      notifier.close();
      sleeper.wakeAll();
    },
  };
}

export interface RunningSandbox {
  url: string;
  state: SandboxState;
  server: http.Server;
  close(): Promise<void>;
}

/**
 * Listens on host:port (port 0 picks a free one) with the transport bounds of every server of the
 * project (HTTP_* settings); the 3DS base URL defaults to the bound address.
 */
export async function startSandbox(options: SandboxOptions & { port?: number; host?: string; http?: HttpLimits }): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const { app, state, stop } = createSandboxApp(options);
  const log = options.log ?? (() => undefined);
  const line = (fields: object, message: string) => log(`${message} ${JSON.stringify(fields)}`);
  const server = createHttpServer(app.callback(), { limits: options.http ?? httpLimits(), logger: { info: line, warn: line } });
  const port = await listen(server, options.port ?? 0, host);
  const url = `http://${host}:${port}`;
  if (state.settings.publicUrl === null) state.settings.publicUrl = url;
  let closing: Promise<void> | null = null;
  return {
    url,
    state,
    server,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        stop();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
