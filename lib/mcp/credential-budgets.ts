import { RateBuckets } from "../rate-buckets";
import { CredentialSlots } from "./credential-slots";

// The per-credential budgets as data: what a process holds (mcp-deps.ts names the type) and how it
// is made. Spending them (refusals, 429s, tool errors) is credential-limits.ts, which needs the
// handler's deps and call; keeping the two apart keeps mcp-deps.ts a leaf every module can import.

/** RUNIFOLD_MAX_STREAMS_PER_KEY's default: SSE streams (listen, GET, tasks/result, inline tools/call) one key holds. */
export const DEFAULT_MAX_STREAMS_PER_KEY = 100;
/** RUNIFOLD_MAX_WAITS_PER_KEY's default: JSON requests blocked on a task (tasks/result, ordinary tools/call). */
export const DEFAULT_MAX_WAITS_PER_KEY = 100;
/** RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_KEY's default: 10 a second sustained, a minute's worth in a burst. */
export const DEFAULT_MAX_TASK_CREATES_PER_MINUTE_PER_KEY = 600;
/**
 * RUNIFOLD_MAX_TASK_CREATES_PER_MINUTE_PER_TENANT's default: every credential of a tenant together
 * (review F16: members mint keys and grants without limit, so a per-key budget alone multiplies).
 */
export const DEFAULT_MAX_TASK_CREATES_PER_MINUTE_PER_TENANT = 3_000;
/** The per-credential (and per-tenant) budgets of one web process (security review M4); shared by its POST and GET handlers. */
export type CredentialLimits = {
  streams: CredentialSlots;
  waits: CredentialSlots;
  creates: RateBuckets;
  tenantCreates: RateBuckets;
};

export function createCredentialLimits(
  config: {
    maxStreamsPerKey?: number;
    maxWaitsPerKey?: number;
    maxTaskCreatesPerMinutePerKey?: number;
    maxTaskCreatesPerMinutePerTenant?: number;
    /** The creation bucket's clock (tests move it instead of waiting a minute). */
    now?: () => number;
  } = {},
): CredentialLimits {
  return {
    streams: new CredentialSlots(config.maxStreamsPerKey ?? DEFAULT_MAX_STREAMS_PER_KEY),
    waits: new CredentialSlots(config.maxWaitsPerKey ?? DEFAULT_MAX_WAITS_PER_KEY),
    creates: new RateBuckets(config.maxTaskCreatesPerMinutePerKey ?? DEFAULT_MAX_TASK_CREATES_PER_MINUTE_PER_KEY, config.now),
    tenantCreates: new RateBuckets(
      config.maxTaskCreatesPerMinutePerTenant ?? DEFAULT_MAX_TASK_CREATES_PER_MINUTE_PER_TENANT,
      config.now,
    ),
  };
}
