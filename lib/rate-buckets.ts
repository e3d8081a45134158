/**
 * A rate per key per minute, as a token bucket per key: a key may spend `perMinute` tokens in a
 * burst, then one more every 60 000 / perMinute ms. Task creations per credential (security review
 * M4, lib/mcp) and client registrations per address (lib/oauth). In process memory, so N web
 * instances allow N × the rate. A small module rather than a dependency: one refill formula, and
 * the answer must say when the next token comes (Retry-After).
 */
export class RateBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Spends a token, or says how many whole seconds until one is there (at least 1). */
  take(key: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    const tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.perMs / 1000)) };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > 10_000) this.forgetFull(now);
    return { ok: true };
  }

  /** A bucket that has refilled is the same as none: dropped, so idle keys cost no memory. */
  private forgetFull(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.perMs >= this.perMinute) this.buckets.delete(key);
    }
  }
}
