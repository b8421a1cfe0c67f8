// The service's own request limits (OWASP API4), by rate-limiter-flexible: one per API key (by its
// hash, so merchants never share) and one per client address (so unknown or random keys cost one
// address its capacity, not the database a look-up each). With a Redis (REDIS_URL) every API replica
// counts in the same place, so a limit holds across replicas; without one the counts stay in the
// process. When Redis does not answer, each process falls back to its own in-memory counts (the
// library's insurance limiter): the limit still holds per process, requests are still answered.
import { Redis } from 'ioredis';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimitSettings {
  /** Sustained requests per second. */
  ratePerSecond: number;
  /** How many requests may arrive at once. */
  burst: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RequestLimitsOptions {
  perKey: RateLimitSettings;
  perAddress: RateLimitSettings;
  /** `redis://...`: counts shared by every process with the same URL and prefix; null: in the process. */
  redisUrl: string | null;
  /** Prefix of every Redis key, so deployments (or tests) sharing a Redis do not share counts. */
  redisPrefix: string;
  /** How long one Redis command may take before the request is counted in the process instead. */
  redisCommandTimeoutMs: number;
  /** Told when the shared store stops (false) or starts again (true) answering. */
  onStoreChange?: (up: boolean) => void;
  /** Told of each request counted in the process because the shared store did not answer. */
  onFallback?: () => void;
}

/** The in-process counts that stand in for Redis while it does not answer, telling whom it may concern. */
class Insurance extends RateLimiterMemory {
  constructor(options: ConstructorParameters<typeof RateLimiterMemory>[0], private readonly used: () => void) {
    super(options);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>): ReturnType<RateLimiterMemory['consume']> {
    this.used();
    return super.consume(...args);
  }
}

interface Consumer { consume(key: string): Promise<unknown> }

/**
 * A token bucket in rate-limiter-flexible's fixed windows: `ratePerSecond` per 1 s window, and the
 * rest of the burst from a second limiter whose window is as long as refilling it takes, so a full
 * burst is answered at once and the sustained rate stays close to the configured one (at most
 * `ratePerSecond + (burst - ratePerSecond) / window`).
 */
function bucket(settings: RateLimitSettings, make: (points: number, duration: number, suffix: string) => RateLimiterAbstract): Consumer {
  const { ratePerSecond, burst } = settings;
  const steady = make(Math.min(ratePerSecond, burst), 1, '');
  const extra = burst - ratePerSecond;
  if (extra <= 0) return steady;
  return new BurstyRateLimiter(steady, make(extra, Math.max(1, Math.ceil(burst / ratePerSecond)), '-burst'));
}

async function decide(consumer: Consumer, key: string): Promise<RateDecision> {
  try {
    await consumer.consume(key);
    return { allowed: true };
  } catch (refusal) {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)) };
  }
}

export class RequestLimits {
  private readonly keys: Consumer;
  private readonly addresses: Consumer;
  /** Key hashes that authenticated recently, least recently used first (bounded). */
  private readonly known = new Map<string, true>();
  private readonly redis: Redis | null;

  constructor(options: RequestLimitsOptions, private readonly maxKnownKeys = 100_000) {
    this.redis = options.redisUrl === null ? null : connectRedis(options.redisUrl, options.redisCommandTimeoutMs, options.onStoreChange);
    const redis = this.redis;
    const make = (kind: string) => (points: number, duration: number, suffix: string): RateLimiterAbstract => {
      const memory = { points, duration, keyPrefix: `${kind}${suffix}` };
      if (!redis) return new RateLimiterMemory(memory);
      return new RateLimiterRedis({
        storeClient: redis, points, duration, keyPrefix: `${options.redisPrefix}:${kind}${suffix}`,
        // Not connected (Redis down or not up yet): count in the process at once instead of waiting.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new Insurance(memory, () => options.onFallback?.()),
      });
    };
    this.keys = bucket(options.perKey, make('key'));
    this.addresses = bucket(options.perAddress, make('address'));
  }

  /** Whether this key hash authenticated recently here (its limit is then applied before the database). */
  knows(keyHash: string): boolean {
    return this.known.has(keyHash);
  }

  /** Takes one request of an authenticated key. */
  key(keyHash: string): Promise<RateDecision> {
    this.known.delete(keyHash);
    this.known.set(keyHash, true);
    if (this.known.size > this.maxKnownKeys) this.known.delete(this.known.keys().next().value as string);
    return decide(this.keys, keyHash);
  }

  /** Takes one request of a client address, whatever key it carries. */
  address(address: string): Promise<RateDecision> {
    return decide(this.addresses, address);
  }

  /** Whether the shared store is connected now (always false without one). */
  shared(): boolean {
    return this.redis?.status === 'ready';
  }

  async close(): Promise<void> {
    if (!this.redis) return;
    this.redis.removeAllListeners();
    this.redis.on('error', () => {});
    this.redis.disconnect();
  }
}

function connectRedis(url: string, commandTimeoutMs: number, onStoreChange: ((up: boolean) => void) | undefined): Redis {
  const redis = new Redis(url, {
    // A command while disconnected fails at once (the limiter counts in the process) instead of
    // queueing the request behind a reconnect.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2_000,
    // Reconnects forever, at most every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  let up: boolean | null = null;
  const report = (now: boolean) => {
    if (up === now) return;
    // The first news is only worth telling when it is bad.
    if (up !== null || !now) onStoreChange?.(now);
    up = now;
  };
  redis.on('ready', () => report(true));
  // Without a listener ioredis prints every connection error itself.
  redis.on('error', () => report(false));
  redis.on('close', () => report(false));
  return redis;
}
