// `card-payments listen`: receive the account's events on a machine the service cannot reach. It
// follows the Events API (newest first) from the moment it starts and POSTs each new event to a
// local URL with the body and headers of a real webhook, signed with a `whsec_` secret of its own.
//
// "New" is by the service's clock (the `Date` of its first answer): an event of a change that
// happened before `listen` started is not forwarded, even when it is recorded a moment later.
// Events are listed in the order they were recorded. One recorded a moment after a newer one was
// read can still appear behind it, so each poll reads back a window of LAG_SECONDS behind the newest
// event seen and forwards what it has not forwarded yet.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PaymentsClient } from '../client';
import { SDK_VERSION } from '../http';
import type { Event, EventListParams } from '../types';
import { Webhooks } from '../webhooks';

const LAG_SECONDS = 60;
const FORWARD_TIMEOUT_MS = 10_000;

export interface ListenOptions {
  forwardTo: string;
  /** Event types or wildcards (`payment.*`); all when absent. */
  types?: string[];
  intervalMs: number;
  secret: string;
  /** How the key is named in the banner (its prefix only). */
  keyHint: string;
}

function configDirectory(): string {
  return path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'card-payments');
}

/** The machine's listen secret: created once (readable by its owner only), then the same on every run. */
export function readOrCreateSecret(): string {
  const file = path.join(configDirectory(), 'listen-secret');
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.startsWith('whsec_')) return stored;
  } catch {
    // Not created yet.
  }
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

const time = () => new Date().toISOString().replace('T', ' ').slice(0, 19);

/** The body a webhook endpoint receives for this event (the Events API adds `object: "event"`). */
export function webhookBody(event: Event): string {
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at, livemode: event.livemode, data: event.data });
}

/** Events newer than the window's start, oldest first, that `seen` does not hold yet and that happened since `since`. */
async function newEvents(client: PaymentsClient, filter: EventListParams, seen: Map<string, number>, windowStart: number, since: number): Promise<Event[]> {
  const found: Event[] = [];
  for await (const event of client.events.list({ ...filter, limit: 100 })) {
    if (event.created_at < windowStart) break;
    if (!seen.has(event.id) && event.created_at >= since) found.push(event);
  }
  return found.reverse();
}

export async function listen(client: PaymentsClient, options: ListenOptions): Promise<void> {
  const filter: EventListParams = options.types?.length ? { type: options.types as EventListParams['type'] } : {};
  const webhooks = new Webhooks();
  const seen = new Map<string, number>();
  let newest = -Infinity;
  const remember = (event: Event) => {
    seen.set(event.id, event.created_at);
    newest = Math.max(newest, event.created_at);
  };
  // Everything already recorded is history, not news: read back one window and forward none of it.
  const history = client.events.list({ ...filter, limit: 100 });
  const serverNow = Date.parse((await history).lastResponse.headers.date ?? '');
  const since = Math.floor((Number.isNaN(serverNow) ? Date.now() : serverNow) / 1000);
  for await (const event of history) {
    if (event.created_at < newest - LAG_SECONDS) break;
    remember(event);
  }

  process.stdout.write(`> Ready! Forwarding the events of ${options.keyHint}... to ${options.forwardTo}\n`);
  process.stdout.write(`> Your webhook signing secret is ${options.secret} (^C to quit)\n`);

  let stopping = false;
  const stop = () => { stopping = true; };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  while (!stopping) {
    try {
      const events = await newEvents(client, filter, seen, Number.isFinite(newest) ? newest - LAG_SECONDS : -Infinity, since);
      for (const event of events) {
        remember(event);
        await forward(webhooks, options, event);
      }
      // Keep only what the window can still hold.
      for (const [id, createdAt] of seen) if (createdAt < newest - 2 * LAG_SECONDS) seen.delete(id);
    } catch (error) {
      process.stderr.write(`${time()}  could not read events: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
}

async function forward(webhooks: Webhooks, options: ListenOptions, event: Event): Promise<void> {
  const body = webhookBody(event);
  const headers = webhooks.sign({ id: event.id, payload: body, secret: options.secret });
  process.stdout.write(`${time()}   --> ${event.type} [${event.id}]\n`);
  try {
    const response = await fetch(options.forwardTo, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': `card-payments-cli/${SDK_VERSION}`, ...headers },
      body,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      redirect: 'manual',
    });
    await response.arrayBuffer();
    process.stdout.write(`${time()}  <--  [${response.status}] POST ${options.forwardTo} [${event.id}]\n`);
  } catch (error) {
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    process.stdout.write(`${time()}  <--  [ERROR] POST ${options.forwardTo} [${event.id}]: ${reason}\n`);
  }
}
