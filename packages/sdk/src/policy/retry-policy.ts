import { NonRetryableError, WorkflowFailure, WorkflowMisuse } from "../errors";

/**
 * How a failing step is retried. Set per workflow (`defineWorkflow({ retry })`, the default for its
 * steps) and per step (`ctx.step(key, fn, { retry })`, which wins field by field). The count of
 * failed executions is stored with the run, so a crash never resets it (ops/record-step-failure.ts).
 */
export type RetryPolicy = {
  /** Executions in all, the first included. Default 3. */
  maxAttempts?: number;
  /** Backoff before the second execution. Default 100 ms. */
  initialBackoffMs?: number;
  /** The backoff never grows past this. Default 60 s. */
  maxBackoffMs?: number;
  /** Each backoff is the previous one times this. Default 2. */
  backoffFactor?: number;
  /** 0..1: each backoff is moved at random by up to this fraction, so retries of many runs spread out. Default 0.2. */
  jitter?: number;
  /** Error names (`error.name`, or a class name in its prototype chain) that are never retried. */
  nonRetryable?: string[];
};

export type ResolvedRetryPolicy = Required<RetryPolicy>;

export const DEFAULT_RETRY_POLICY: Readonly<ResolvedRetryPolicy> = Object.freeze({
  maxAttempts: 3,
  initialBackoffMs: 100,
  maxBackoffMs: 60_000,
  backoffFactor: 2,
  jitter: 0.2,
  nonRetryable: [],
});

/** The older step options (`retries` = attempts after the first, `backoffMs` = first backoff). */
export type LegacyRetryOptions = { retries?: number; backoffMs?: number };

export function resolveRetryPolicy(
  workflow: RetryPolicy | undefined,
  step: (LegacyRetryOptions & { retry?: RetryPolicy }) | undefined,
): ResolvedRetryPolicy {
  const legacy: RetryPolicy = {
    ...(step?.retries !== undefined ? { maxAttempts: step.retries + 1 } : {}),
    ...(step?.backoffMs !== undefined ? { initialBackoffMs: step.backoffMs } : {}),
  };
  const merged = { ...DEFAULT_RETRY_POLICY, ...defined(workflow), ...defined(legacy), ...defined(step?.retry) };
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new WorkflowMisuse("invalid_argument", `retry policy: ${what}`);
  };
  check(Number.isInteger(merged.maxAttempts) && merged.maxAttempts >= 1, "maxAttempts must be an integer >= 1");
  check(isNonNegative(merged.initialBackoffMs), "initialBackoffMs must be a finite number >= 0");
  check(isNonNegative(merged.maxBackoffMs), "maxBackoffMs must be a finite number >= 0");
  check(Number.isFinite(merged.backoffFactor) && merged.backoffFactor >= 1, "backoffFactor must be >= 1");
  check(Number.isFinite(merged.jitter) && merged.jitter >= 0 && merged.jitter <= 1, "jitter must be between 0 and 1");
  check(Array.isArray(merged.nonRetryable), "nonRetryable must be a list of error names");
  return merged;
}

/** The wait before the next execution, after `failures` failed ones (1 = after the first). */
export function backoffDelayMs(policy: ResolvedRetryPolicy, failures: number, random: () => number = Math.random): number {
  const exponential = policy.initialBackoffMs * policy.backoffFactor ** Math.max(0, failures - 1);
  const capped = Math.min(policy.maxBackoffMs, exponential);
  const spread = capped * policy.jitter * (2 * random() - 1);
  return Math.max(0, Math.min(policy.maxBackoffMs, Math.round(capped + spread)));
}

/** `WorkflowFailure`, `NonRetryableError` and the policy's named classes end the step at once. */
export function isRetryable(error: unknown, policy: ResolvedRetryPolicy): boolean {
  if (error instanceof NonRetryableError || error instanceof WorkflowFailure) return false;
  if (policy.nonRetryable.length === 0) return true;
  return !errorNames(error).some((name) => policy.nonRetryable.includes(name));
}

function errorNames(error: unknown): string[] {
  const names: string[] = [];
  if (error instanceof Error) names.push(error.name);
  for (
    let proto = Object.getPrototypeOf(error ?? {});
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    const name = (proto.constructor as { name?: unknown } | undefined)?.name;
    if (typeof name === "string") names.push(name);
  }
  return names;
}

function isNonNegative(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}

function defined<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
