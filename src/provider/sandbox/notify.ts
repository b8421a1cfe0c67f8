// Server-to-server notifications of 3DS step changes. The first delivery is awaited (bounded) so
// the service has taken the change before the shopper's browser arrives at return_url; a failed
// delivery is retried in the background on a bounded schedule, and never blocks the redirect.
import { createHmac } from 'node:crypto';
import type { AuthorizationRecord, NotificationLog, SandboxState } from './state';

export interface NotifierConfig {
  secret: string;
  timeoutMs: number;
  retryDelaysMs: number[];
  log: (line: string) => void;
}

export function signNotification(rawBody: string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

export class Notifier {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly state: SandboxState,
    private readonly config: NotifierConfig,
  ) {}

  /** Resolves true once the service answered 2xx, false after a failed first attempt. */
  async notify(record: AuthorizationRecord): Promise<boolean> {
    const body = JSON.stringify({
      type: 'authorization.updated',
      authorization_id: record.id,
      reference: record.reference,
    });
    const entry: NotificationLog = {
      authorizationId: record.id, reference: record.reference, attempts: 0, delivered: false,
    };
    this.state.notifications.push(entry);
    const delivered = await this.deliver(record.notifyUrl, body, entry);
    if (!delivered) this.scheduleRetry(record.notifyUrl, body, entry, 0);
    return delivered;
  }

  private async deliver(url: string, body: string, entry: NotificationLog): Promise<boolean> {
    entry.attempts += 1;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Sandbox-Signature': signNotification(body, this.config.secret),
        },
        body,
        signal: AbortSignal.timeout(this.config.timeoutMs),
        redirect: 'manual',
      });
      await res.arrayBuffer().catch(() => undefined); // drain so the connection is reused
      if (res.status >= 200 && res.status < 300) {
        entry.delivered = true;
        return true;
      }
      this.config.log(`sandbox: notification for ${entry.authorizationId} answered ${res.status} (attempt ${entry.attempts})`);
    } catch (err) {
      // The error code (ECONNREFUSED, TimeoutError...) is enough; messages may echo URLs.
      const e = (typeof err === 'object' && err !== null ? err : {}) as { name?: unknown; cause?: { code?: unknown } };
      const reason = typeof e.cause?.code === 'string' ? e.cause.code : typeof e.name === 'string' ? e.name : 'error';
      this.config.log(`sandbox: notification for ${entry.authorizationId} failed: ${reason} (attempt ${entry.attempts})`);
    }
    return false;
  }

  private scheduleRetry(url: string, body: string, entry: NotificationLog, index: number): void {
    if (this.closed) return;
    const delay = this.config.retryDelaysMs[index];
    if (delay === undefined) {
      this.config.log(`sandbox: notification for ${entry.authorizationId} given up after ${entry.attempts} attempts`);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      void this.deliver(url, body, entry).then((ok) => {
        if (!ok) this.scheduleRetry(url, body, entry, index + 1);
      });
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  /** Drops pending background retries (reset). */
  cancelRetries(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  close(): void {
    this.closed = true;
    this.cancelRetries();
  }
}
