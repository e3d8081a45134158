/**
 * How many of one kind of long-lived request (open streams, blocking waits) each credential holds
 * at once, in this process (security review M4). A plain Map and not a library: the whole job is a
 * counter per key with an idempotent release, and the maintained rate limiters (rate-limiter-flexible,
 * bottleneck …) are built around time windows or queues, not "refuse the n+1th while n are open".
 * Per process: N web instances allow N × cap in total (docs/security.md).
 */
export class CredentialSlots {
  private readonly held = new Map<string, number>();

  constructor(readonly cap: number) {}

  /** Takes a slot, or undefined at the cap. The release may be called any number of times (abort, close, error). */
  tryAcquire(keyId: string): (() => void) | undefined {
    const count = this.held.get(keyId) ?? 0;
    if (count >= this.cap) return undefined;
    this.held.set(keyId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(keyId) ?? 1) - 1;
      if (left <= 0) this.held.delete(keyId);
      else this.held.set(keyId, left);
    };
  }

  /** Slots the credential holds now (tests, diagnostics). */
  inUse(keyId: string): number {
    return this.held.get(keyId) ?? 0;
  }
}
