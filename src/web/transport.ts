// Every HTTP server the project runs (the API, the codec server, the sandbox acquirer, the metrics
// and health listeners) is made here, with the same transport bounds (docs/configuration.md, "HTTP
// limits"): how long headers and bodies may take to arrive, how large headers may be, how many
// connections a process keeps, and how many of them one client address may hold. Requests Node
// refuses before the app sees them (headers too large, a request that did not arrive in time, a
// malformed request or body framing) get a JSON error and a Request-Id, as every other error does.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config';
import { ApiError } from '../domain/errors';
import { newId } from '../domain/ids';
import { clientAddressKey } from '../domain/ip';
import { UNREAD_BODY_LIMITS } from './unread-body';

/** llhttp's errors about the body's framing; the rest are about the request line or a header. */
const BODY_FRAMING = new Set([
  'HPE_INVALID_CHUNK_SIZE', 'HPE_CHUNK_EXTENSIONS_OVERFLOW', 'HPE_INVALID_CONTENT_LENGTH', 'HPE_UNEXPECTED_CONTENT_LENGTH',
  'HPE_INVALID_TRANSFER_ENCODING', 'HPE_INVALID_EOF_STATE',
]);

type ClientError = Error & { code?: string; reason?: string };

/** What the transport logs: a pino logger, or anything with its two methods. */
export interface TransportLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface TransportOptions {
  limits: HttpLimits;
  logger: TransportLogger;
  /**
   * The body of an answer the transport gives itself; the API answers with its error envelope.
   * Default: `{"error": {"code", "message", "request_id"}}`.
   */
  refusalBody?: (error: ApiError, requestId: string) => unknown;
  /**
   * Connections arrive through a trusted proxy (TRUST_PROXY=1): one address then carries every
   * client, so the per-client connection cap is the proxy's to enforce, not this process's.
   */
  behindProxy?: boolean;
}

/** The answer to a request Node could not take, or null for a connection that broke (nothing to answer). */
export function transportError(error: ClientError, limits: HttpLimits): ApiError | null {
  const code = error.code ?? '';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError('request_body_invalid', {
      status: 408,
      message: `The request did not arrive in time: its headers must arrive within ${limits.headersTimeoutMs} ms, and its body within ${limits.bodyTimeoutMs} ms more.`,
    });
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError('parameter_invalid', { status: 431, message: `The request line and headers must be at most ${limits.maxHeaderBytes} bytes together.` });
  }
  if (!code.startsWith('HPE_')) return null;
  const reason = error.reason ? ` (${error.reason})` : '';
  return BODY_FRAMING.has(code)
    ? new ApiError('request_body_invalid', { message: `The request body is not framed correctly by its Content-Length or chunked Transfer-Encoding${reason}.` })
    : new ApiError('parameter_invalid', { message: `The request line or a header is malformed${reason}.` });
}

const plainRefusal = (error: ApiError, requestId: string) => ({ error: { code: error.code, message: error.message, request_id: requestId } });

function rawResponse(error: ApiError, requestId: string, body: unknown): string {
  const text = JSON.stringify(body);
  return [
    `HTTP/1.1 ${error.status} ${http.STATUS_CODES[error.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    `Request-Id: ${requestId}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    text,
  ].join('\r\n');
}


/** Counts of what the transport closed on arrival, logged at most once per 10 s. */
function arrivalLog(logger: TransportLogger, limits: HttpLimits) {
  const counts = { over_process_cap: 0, over_client_cap: 0 };
  let pending = false;
  return (reason: keyof typeof counts) => {
    counts[reason] += 1;
    // One line per 10 s at most: a flood of connections must not become a flood of log lines.
    if (pending) return;
    pending = true;
    setTimeout(() => {
      logger.warn({ ...counts, max_connections: limits.maxConnections, max_connections_per_client: limits.maxConnectionsPerClient }, 'connections closed on arrival: too many open');
      counts.over_process_cap = 0;
      counts.over_client_cap = 0;
      pending = false;
    }, 10_000).unref();
  };
}

export function createHttpServer(handler: http.RequestListener, options: TransportOptions): http.Server {
  const { limits, logger } = options;
  const refusalBody = options.refusalBody ?? plainRefusal;
  const server = http.createServer({
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.headersTimeoutMs + limits.bodyTimeoutMs,
    // Node checks both timeouts on this tick only (every 30 s by default).
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(limits.headersTimeoutMs / 4)),
  }, handler);
  // Longer than a load balancer's usual 60 s idle timeout, so the balancer closes idle connections first.
  server.keepAliveTimeout = 65_000;
  // Node drops headers past this count silently; one more than allowed lets the app see, and refuse, a request that has too many.
  server.maxHeadersCount = limits.maxHeaders + 1;
  // Connections past this are closed as they arrive, without an answer: a client retries a lost
  // answer with the same Idempotency-Key, and answering would cost what the cap saves.
  server.maxConnections = limits.maxConnections;
  const closedOnArrival = arrivalLog(logger, limits);
  server.on('drop', () => closedOnArrival('over_process_cap'));

  // One client address may hold only part of the process's connections, so that others (and the
  // balancer's health checks) still get in while it holds its share.
  if (!options.behindProxy) {
    const open = new Map<string, number>();
    server.on('connection', (socket: Socket) => {
      const address = clientAddressKey(socket.remoteAddress ?? '');
      const count = (open.get(address) ?? 0) + 1;
      if (count > limits.maxConnectionsPerClient) {
        closedOnArrival('over_client_cap');
        socket.destroy();
        return;
      }
      open.set(address, count);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left <= 0) open.delete(address);
        else open.set(address, left);
      });
    });
  }

  // What this process is answering on a socket: a transport error must not cut into an answer already started.
  const answering = new WeakMap<Duplex, http.ServerResponse>();
  const answered = new WeakSet<Duplex>();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    answering.set(req.socket, res);
    res.once('close', () => {
      if (answering.get(req.socket) === res) answering.delete(req.socket);
    });
  });

  server.on('clientError', (error: ClientError, socket: Duplex) => {
    // The parser reports every later chunk of a refused request too: the first answer stands.
    if (answered.has(socket)) return;
    const answer = transportError(error, limits);
    if (!answer || !socket.writable || answering.get(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const requestId = newId('request');
    logger.info({ request_id: requestId, status: answer.status, code: answer.code, transport: error.code }, 'request refused by the transport');
    socket.end(rawResponse(answer, requestId, refusalBody(answer, requestId)));
    // Closed once the client has read the answer and closed too, or after the same bound as an unread body (unread-body.ts).
    const timer = setTimeout(() => socket.destroy(), UNREAD_BODY_LIMITS.maxMs);
    socket.once('close', () => clearTimeout(timer));
  });
  return server;
}

/** Listens on host:port (0 picks a free port) and answers the port bound. */
export function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
