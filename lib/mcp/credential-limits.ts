import type { WorkflowResult } from "@runifold/sdk";
import { type CredentialLimits, createCredentialLimits } from "./credential-budgets";
import { McpError, RPC } from "./json-rpc";
import type { McpCall, McpDeps } from "./mcp-deps";

/** What a 429 for a full stream or wait budget asks the client to wait: slots free as soon as one ends. */
const SLOT_RETRY_AFTER_S = 5;

let processDefault: CredentialLimits | undefined;

/**
 * The budgets a handler built without `limits` uses: one instance per process with the defaults,
 * so the POST and GET handlers of such a process still count the same streams.
 */
export function limitsOf(deps: { limits?: CredentialLimits }): CredentialLimits {
  if (deps.limits) return deps.limits;
  processDefault ??= createCredentialLimits();
  return processDefault;
}

/**
 * Takes one of the credential's stream slots, or refuses. The refusal is an HTTP 429 with
 * Retry-After (RFC 6585 §4; RFC 9110 §10.2.3) and a JSON-RPC error body with -32600, in both eras:
 * it is decided before the stream starts, like the other transport-level refusals here (413 body
 * too large, 415, 406 all carry -32600), and neither era defines a code of its own for it (2025-11-25
 * tasks.mdx "Security Considerations" only says receivers SHOULD cap concurrency; 2026-07-28
 * reserves -32020..-32022 for header, capability and version errors). The caller must release on
 * every end of the stream.
 */
export function holdStream(deps: McpDeps, call: McpCall): () => void {
  const limits = limitsOf(deps);
  return limits.streams.tryAcquire(call.principal.keyId) ?? refuse("open streams", limits.streams.cap);
}

/** Takes one of the credential's blocking-wait slots (a JSON request held until a task moves), or refuses as holdStream. */
export function holdWait(deps: McpDeps, call: McpCall): () => void {
  const limits = limitsOf(deps);
  return limits.waits.tryAcquire(call.principal.keyId) ?? refuse("blocking waits", limits.waits.cap);
}

/** Runs `wait` holding a wait slot, released however it ends. */
export async function whileWaiting<T>(deps: McpDeps, call: McpCall, wait: () => Promise<T>): Promise<T> {
  const release = holdWait(deps, call);
  try {
    return await wait();
  } finally {
    release();
  }
}

function refuse(what: string, cap: number): never {
  throw new McpError(
    RPC.invalidRequest,
    `Too many ${what} for this credential (at most ${cap} at once on this server); close one, then retry`,
    { limit: what === "open streams" ? "streams" : "waits", max: cap, retryAfterSeconds: SLOT_RETRY_AFTER_S },
    429,
    { "retry-after": String(SLOT_RETRY_AFTER_S) },
  );
}

/**
 * Spends one of the credential's task creations, or returns the tool error to answer instead. Not a
 * 429: the same answer as the active-task cap (tool-invocation.ts activeTaskCapResult), because the
 * request is a valid tools/call and the refusal is a condition of this call that the caller (a model,
 * often) should see and act on; a 4xx on tools/call reaches an SDK v1 client as a transport error
 * without the JSON-RPC code. The wait is in the text (no
 * structuredContent: it would have to match the tool's output schema).
 */
export function takeTaskCreation(deps: McpDeps, call: McpCall): (WorkflowResult & { isError: true }) | undefined {
  const limits = limitsOf(deps);
  const taken = limits.creates.take(call.principal.keyId);
  if (!taken.ok) return tooMany(`this credential may create ${limits.creates.perMinute} tasks a minute`, taken.retryAfterSeconds);
  // Every credential of the tenant together (review F16): new keys or grants do not multiply it.
  const tenant = limits.tenantCreates.take(call.principal.tenantId);
  if (!tenant.ok)
    return tooMany(`this tenant may create ${limits.tenantCreates.perMinute} tasks a minute`, tenant.retryAfterSeconds);
  return undefined;
}

function tooMany(rule: string, retryAfterSeconds: number): WorkflowResult & { isError: true } {
  return {
    content: [{ type: "text", text: `Too many tasks created: ${rule}. Retry in ${retryAfterSeconds}s.` }],
    isError: true,
  };
}
