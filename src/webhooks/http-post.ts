// One webhook POST with a hard timeout, to a destination the policy allows (destination.ts). The URL
// is checked first, then every address its name resolves to, in the socket's own DNS lookup, so the
// address we connect to is the one we checked (no gap for DNS rebinding). Redirects are not followed:
// a 3xx answer is an attempt that failed.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { parseIpLiteral } from '../domain/ip';
import { addressRefusal, effectivePort, urlRefusal, type DestinationPolicy } from './destination';

export class RefusedDestinationError extends Error {}

export interface PostResult {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

export interface PostOptions {
  timeoutMs: number;
  /** Live events go to public addresses only. */
  livemode: boolean;
  policy: DestinationPolicy;
}

/** Attempts refused by the policy record an error with this prefix, and are never retried. */
export const REFUSED_PREFIX = 'refused: ';

/** A DNS lookup that fails with RefusedDestinationError when any address of the name is refused. */
export function guardedLookup(port: number, options: PostOptions): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as dns.LookupAddress[];
      const refusal = list.length === 0
        ? 'destination resolves to no address'
        : list.map((a) => addressRefusal(parseIpLiteral(a.address)?.canonical ?? a.address, port, options.livemode, options.policy)).find((r) => r !== null);
      if (refusal) return callback(new RefusedDestinationError(refusal), '', 4);
      if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export function postJson(url: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<PostResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const refusal = urlRefusal(url, options.livemode, options.policy);
    if (refusal) {
      resolve({ statusCode: null, error: `${REFUSED_PREFIX}${refusal}`, latencyMs: 0 });
      return;
    }
    const target = new URL(url);
    const transport = target.protocol === 'https:' ? https : http;
    const request = transport.request(target, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'card-payments-webhooks/1', ...headers, 'Content-Length': Buffer.byteLength(body) },
      lookup: guardedLookup(effectivePort(target), options),
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
      const message = error instanceof RefusedDestinationError ? `${REFUSED_PREFIX}${error.message}`
        : error.message === 'timeout' ? 'timeout'
          : `network error: ${(error as NodeJS.ErrnoException).code ?? error.message}`;
      resolve({ statusCode: null, error: message.slice(0, 255), latencyMs: Date.now() - started });
    });
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
