// A merchant's HTTP client as docs/quickstart.md ("Handling errors") asks it to behave: on a lost
// connection, a 5xx, a 429 or a 409 idempotency_key_in_use it retries with the same Idempotency-Key
// and body, with backoff, until it gets a 2xx; then a final same-key replay must equal that first
// 2xx byte for byte.
import { randomUUID } from 'node:crypto';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  ms: number;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  key: string;
  body?: unknown;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request; a connection that fails or times out throws. */
export async function send(baseUrl: string, spec: RequestSpec, timeoutMs = 45_000): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${spec.key}`, ...spec.headers };
  if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
  if (spec.idempotencyKey !== undefined) headers['Idempotency-Key'] = spec.idempotencyKey;
  const started = performance.now();
  const res = await fetch(`${baseUrl}${spec.path}`, {
    method: spec.method,
    headers,
    body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown = null;
  try { json = JSON.parse(text); } catch { json = null; }
  return { status: res.status, headers: res.headers, text, json, ms: performance.now() - started };
}

/** Why an attempt was retried: a status, `in_use`, or `connection`. */
export type RetryReason = string;

export function isRetryable(answer: Answer): boolean {
  if (answer.status >= 500 || answer.status === 429) return true;
  return answer.status === 409 && answer.json?.error?.code === 'idempotency_key_in_use';
}

function backoffMs(attempt: number, answer: Answer | null): number {
  const retryAfter = Number(answer?.headers.get('retry-after'));
  const base = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 200 * 2 ** Math.min(attempt, 4);
  return Math.min(base, 5000) + Math.floor(Math.random() * 200);
}

export interface Retried {
  /** The first non-retryable answer (a 2xx, or a 4xx the client must not retry), or null at the deadline. */
  answer: Answer | null;
  attempts: number;
  retries: RetryReason[];
}

/**
 * Sends until the answer is not retryable or the deadline passes. `baseUrl` is read per attempt,
 * so a restarted server is found where it now listens.
 */
export async function sendUntilSettled(baseUrl: () => string, spec: RequestSpec, deadlineMs = 180_000): Promise<Retried> {
  const deadline = Date.now() + deadlineMs;
  const retries: RetryReason[] = [];
  for (let attempt = 0; ; attempt += 1) {
    let answer: Answer | null = null;
    try {
      answer = await send(baseUrl(), spec);
      if (!isRetryable(answer)) return { answer, attempts: attempt + 1, retries };
      retries.push(answer.status === 409 ? 'in_use' : String(answer.status));
    } catch {
      retries.push('connection');
    }
    if (Date.now() > deadline) return { answer: null, attempts: attempt + 1, retries };
    await sleep(backoffMs(attempt, answer));
  }
}

export interface IdempotentCreate {
  path: string;
  key: string;
  body: unknown;
  idempotencyKey: string;
}

export function newCreate(path: string, key: string, body: unknown, idempotencyKey: string = randomUUID()): IdempotentCreate {
  return { path, key, body, idempotencyKey };
}

export function createUntilSettled(baseUrl: () => string, create: IdempotentCreate, deadlineMs?: number): Promise<Retried> {
  return sendUntilSettled(baseUrl, { method: 'POST', path: create.path, key: create.key, body: create.body, idempotencyKey: create.idempotencyKey }, deadlineMs);
}

/** Polls a GET (through faults) until `accept` holds. */
export async function getUntil(baseUrl: () => string, path: string, key: string, accept: (answer: Answer) => boolean, deadlineMs = 180_000): Promise<Answer | null> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const { answer } = await sendUntilSettled(baseUrl, { method: 'GET', path, key }, Math.max(deadline - Date.now(), 0));
    if (answer && accept(answer)) return answer;
    if (Date.now() > deadline) return null;
    await sleep(250);
  }
}
