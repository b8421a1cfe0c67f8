// The remote codec server of Temporal's protocol: `POST /decode` and `POST /encode` take and answer
// `{"payloads": [{"metadata": {k: base64}, "data": base64}]}`, so the Temporal Web UI
// (`--ui-codec-endpoint`, TEMPORAL_CODEC_ENDPOINT) and CLI (`--codec-endpoint`) show decrypted
// payloads to an operator. It holds the key ring, so it is guarded: on loopback it may run open
// (a developer's machine, `npm start`); on any other address it requires the operator credential,
// as a bearer token (the CLI's `--codec-auth`) or as the session cookie its `/login` page sets for
// the UI ("include cross-origin credentials"). Browsers may call it only from the configured UI
// origins (CORS), and a request carrying any other Origin is refused.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import cors from '@koa/cors';
import Router from '@koa/router';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import Joi from 'joi';
import Koa, { type Context } from 'koa';
import getRawBody from 'raw-body';
import type { CodecServerSettings } from '../config';
import { ApiError, isApiError } from '../domain/errors';
import { isLoopbackIp, parseIpLiteral } from '../domain/ip';
import type { Logger } from '../observability/logger';
import { escapeHtml } from '../web/html';
import { createHttpServer, listen } from '../web/transport';

/** A page of a history's payloads; Temporal keeps each payload under 2 MiB by default. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const SESSION_COOKIE = 'codec_session';
const SESSION_SECONDS = 8 * 3600;
const PayloadJson = temporal.api.common.v1.Payload;

const base64 = Joi.string().base64({ paddingRequired: false }).allow('');
// Proto3 JSON: an empty list is left out, so the CLI sends `{}` for no payloads.
const payloadsBody = Joi.object({
  payloads: Joi.array().items(Joi.object({ metadata: Joi.object().pattern(/.*/, base64), data: base64, externalPayloads: Joi.array() })).max(100_000).default([]),
});

export interface CodecServerOptions {
  settings: CodecServerSettings;
  /** The namespace whose payloads this codec's keys encrypt; requests for another are refused. */
  namespace: string;
  codec: PayloadCodec;
  logger: Logger;
}

export interface RunningCodecServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export function isLoopbackHost(host: string): boolean {
  const literal = parseIpLiteral(host.replace(/^\[|\]$/g, ''));
  return literal ? isLoopbackIp(literal.canonical) : host.toLowerCase() === 'localhost';
}

const digest = (text: string) => createHash('sha256').update(text).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));
const sessionMac = (token: string, expires: number) => createHmac('sha256', token).update(`codec-session:${expires}`).digest('base64url');

/** A session cookie value: its expiry and a MAC under the credential (a new credential ends every session). */
function issueSession(token: string): string {
  const expires = Math.floor(Date.now() / 1000) + SESSION_SECONDS;
  return `${expires}.${sessionMac(token, expires)}`;
}

function validSession(token: string, value: string | undefined): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
  if (!match || Number(match[1]) < Date.now() / 1000) return false;
  return sameSecret(match[2]!, sessionMac(token, Number(match[1])));
}

function fail(code: 'invalid_api_key' | 'actor_forbidden' | 'request_body_invalid' | 'parameter_invalid' | 'resource_not_found', message: string): never {
  throw new ApiError(code, { message });
}

function loginPage(message: string | null): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Codec server</title></head><body>
<h1>Temporal codec server</h1>
<p>Sign in with the operator credential. The Temporal UI then decodes payloads through this server (its codec setting "Include cross-origin credentials" must be on).</p>
${message ? `<p role="alert">${escapeHtml(message)}</p>` : ''}
<form method="post" action="/login"><label>Operator credential <input type="password" name="token" autocomplete="off" required></label> <button type="submit">Sign in</button></form>
</body></html>`;
}

async function readJson(ctx: Context): Promise<unknown> {
  if (!ctx.is('application/json')) fail('request_body_invalid', 'Send the payloads as application/json.');
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, length: ctx.get('Content-Length') || undefined, encoding: 'utf8' });
  } catch {
    fail('request_body_invalid', `The body could not be read (at most ${MAX_BODY_BYTES} bytes).`);
  }
  try {
    return JSON.parse(text);
  } catch {
    fail('request_body_invalid', 'The body is not JSON.');
  }
}

export function createCodecApp(options: CodecServerOptions): Koa {
  const { settings, namespace, codec, logger } = options;
  const token = settings.authToken;
  const allowedOrigins = new Set(settings.corsOrigins);
  const app = new Koa();
  const router = new Router();

  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const apiError = isApiError(error) ? error : new ApiError('internal_error', { message: 'The payloads could not be processed.' });
      if (!isApiError(error)) logger.warn({ err: error instanceof Error ? error.message : String(error), path: ctx.path }, 'codec request failed');
      else logger.info({ status: apiError.status, code: apiError.code, message: apiError.message, path: ctx.path }, 'codec request refused');
      ctx.status = apiError.status;
      ctx.body = { error: { code: apiError.code, message: apiError.message } };
    }
  });
  // Pages of other origins get no CORS answer, and a request that says it comes from one is refused.
  app.use(async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (origin && !allowedOrigins.has(origin)) fail('actor_forbidden', `Origin ${origin} may not call this codec server (CODEC_CORS_ORIGINS).`);
    await next();
  });
  app.use(cors({
    origin: (ctx) => (allowedOrigins.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['POST'],
    allowHeaders: ['Content-Type', 'X-Namespace', 'Authorization', 'Authorization-Extras'],
    credentials: true,
    privateNetworkAccess: true,
    maxAge: 600,
  }));

  const authenticate = async (ctx: Context, next: () => Promise<unknown>) => {
    if (token !== null) {
      const bearer = /^Bearer (.+)$/i.exec(ctx.get('Authorization'))?.[1];
      const allowed = bearer !== undefined ? sameSecret(bearer, token) : validSession(token, ctx.cookies.get(SESSION_COOKIE));
      if (!allowed) {
        logger.warn({ path: ctx.path, ip: ctx.ip }, 'codec request without a valid operator credential');
        fail('invalid_api_key', 'The operator credential is missing or wrong.');
      }
    }
    const requested = ctx.get('X-Namespace');
    if (requested && requested !== namespace) fail('parameter_invalid', `This codec server serves namespace ${namespace}, not ${requested}.`);
    await next();
  };

  const transform = (direction: 'encode' | 'decode') => async (ctx: Context) => {
    const { error, value } = payloadsBody.validate(await readJson(ctx));
    if (error) fail('request_body_invalid', `The body must be {"payloads": [...]} in Temporal's JSON form: ${error.message}`);
    let payloads: Payload[];
    try {
      payloads = (value.payloads as object[]).map((p) => PayloadJson.fromObject(p));
    } catch {
      fail('request_body_invalid', 'A payload is not in Temporal\'s JSON form.');
    }
    let result: Payload[];
    try {
      result = await codec[direction](payloads);
    } catch (error) {
      // A key missing from this server's ring (it names the key id) or a payload altered in storage.
      fail('request_body_invalid', `A payload could not be decrypted: ${error instanceof Error ? error.message : String(error)}`);
    }
    ctx.body = { payloads: result.map((p) => PayloadJson.toObject(PayloadJson.fromObject(p), { bytes: String })) };
  };

  router.post('/decode', authenticate, transform('decode'));
  router.post('/encode', authenticate, transform('encode'));
  router.get('/health', (ctx) => { ctx.body = { status: 'ok' }; });
  if (token !== null) {
    router.get('/login', (ctx) => { ctx.type = 'html'; ctx.body = loginPage(null); });
    router.post('/login', async (ctx) => {
      if (!ctx.is('application/x-www-form-urlencoded')) fail('request_body_invalid', 'Send the login form.');
      const form = new URLSearchParams(await getRawBody(ctx.req, { limit: 4096, encoding: 'utf8' }).catch(() => ''));
      ctx.type = 'html';
      if (!sameSecret(form.get('token') ?? '', token)) {
        logger.warn({ ip: ctx.ip }, 'codec login with a wrong credential');
        ctx.status = 401;
        ctx.body = loginPage('That is not the operator credential.');
        return;
      }
      // Secure, also when this hop is plain HTTP (TLS ends at a proxy): browsers keep it only from
      // https or localhost origins. Strict: sent by the UI's pages on the same site (another port or
      // subdomain), never by another site's.
      ctx.cookies.secure = true;
      ctx.cookies.set(SESSION_COOKIE, issueSession(token), { httpOnly: true, sameSite: 'strict', secure: true, maxAge: SESSION_SECONDS * 1000, overwrite: true });
      ctx.body = loginPage('Signed in for 8 hours: reload the Temporal UI.');
    });
  }
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use((ctx) => { if (ctx.status === 404 && ctx.body === undefined) fail('resource_not_found', `No codec route ${ctx.method} ${ctx.path}.`); });
  return app;
}

/** Serves the codec server; refuses an address other than loopback without an operator credential. */
export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  const { host, port, authToken } = options.settings;
  if (authToken === null && !isLoopbackHost(host)) {
    throw new Error(`the codec server decrypts payloads for whoever reaches it: set CODEC_AUTH_TOKEN to serve it on ${host}, or keep CODEC_HOST on loopback`);
  }
  // The transport bounds of every server of the project: a stalled body is cut with 408.
  const server = createHttpServer(createCodecApp(options).callback(), { limits: options.settings.http, logger: options.logger });
  const bound = await listen(server, port, host);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    port: bound,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
