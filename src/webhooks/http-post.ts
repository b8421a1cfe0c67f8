// One webhook POST with a hard timeout. In live mode the destination must be a public address:
// the check runs in the socket's DNS lookup, so the address we connect to is the one we checked
// (no gap for DNS rebinding).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPublicUnicastIp, parseIpLiteral } from '../domain/ip';

export class RefusedDestinationError extends Error {}

export interface PostResult {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

function guardedLookup(requirePublic: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as dns.LookupAddress[];
      const refused = requirePublic ? list.find((a) => !isPublicUnicastIp(parseIpLiteral(a.address)?.canonical ?? a.address)) : undefined;
      if (refused || !list.length) {
        return callback(new RefusedDestinationError(`destination ${hostname} resolves to a non-public address`), '', 4);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export function postJson(url: string, body: string, headers: Record<string, string>, options: { timeoutMs: number; requirePublic: boolean }): Promise<PostResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ statusCode: null, error: 'invalid endpoint URL', latencyMs: 0 });
      return;
    }
    const literal = parseIpLiteral(target.hostname.replace(/^\[|\]$/g, ''));
    if (options.requirePublic && literal && !isPublicUnicastIp(literal.canonical)) {
      resolve({ statusCode: null, error: 'refused: destination is not a public address', latencyMs: 0 });
      return;
    }
    const transport = target.protocol === 'https:' ? https : http;
    const request = transport.request(target, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'card-payments-webhooks/1', ...headers, 'Content-Length': Buffer.byteLength(body) },
      lookup: guardedLookup(options.requirePublic),
      timeout: options.timeoutMs,
    }, (response) => {
      response.resume();
      response.on('end', () => resolve({ statusCode: response.statusCode ?? null, error: null, latencyMs: Date.now() - started }));
      response.on('error', () => resolve({ statusCode: response.statusCode ?? null, error: 'response aborted', latencyMs: Date.now() - started }));
    });
    // The whole exchange, not just idle time, must fit in the timeout.
    const deadline = setTimeout(() => request.destroy(new Error('timeout')), options.timeoutMs);
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error) => {
      clearTimeout(deadline);
      const refused = error instanceof RefusedDestinationError || error.message.includes('non-public');
      resolve({ statusCode: null, error: refused ? 'refused: destination is not a public address' : error.message === 'timeout' ? 'timeout' : `network error: ${(error as NodeJS.ErrnoException).code ?? error.message}`.slice(0, 255), latencyMs: Date.now() - started });
    });
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
