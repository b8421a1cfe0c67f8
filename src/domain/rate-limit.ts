// Token buckets for the service's own request rate limit (OWASP API4): one bucket per API key, so
// one merchant's burst never takes another's capacity. Pure: time is passed in.
export interface RateLimitSettings {
  /** Sustained requests per second per API key. */
  ratePerSecond: number;
  /** How many requests may arrive at once. */
  burst: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly settings: RateLimitSettings, private readonly maxKeys = 100_000) {}

  /** Whether `key` has a bucket (it took a token recently). */
  knows(key: string): boolean {
    return this.buckets.has(key);
  }

  take(key: string, nowMs: number): RateDecision {
    const { ratePerSecond, burst } = this.settings;
    const bucket = this.buckets.get(key) ?? { tokens: burst, updatedMs: nowMs };
    bucket.tokens = Math.min(burst, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * ratePerSecond);
    bucket.updatedMs = nowMs;
    this.remember(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond)) };
  }

  private remember(key: string, bucket: Bucket): void {
    // Re-insert so the map stays in least-recently-used order; drop the oldest when full (a full
    // bucket costs nothing to forget).
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
  }
}
