import type { z } from "zod";
import type { ApprovalOptions, ApprovalResult } from "./approvals/types";
import type { CompletedStep, RunFailure } from "./compensation/types";
import { type ConcurrencyOption, checkConcurrencyAndPriority } from "./definitions/concurrency";
import type { RetryPolicy } from "./policy/retry-policy";

/** A content block of a tool result (MCP `ContentBlock`, the subset workflows produce). */
/** MCP's ContentBlock (2025-11-25 schema): text, image, audio, a resource link or an embedded resource. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string }
  | { type: "resource"; resource: EmbeddedResourceContents };

/** An embedded resource's contents: text or a base64 blob, with its URI. */
export type EmbeddedResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** What a workflow returns: shaped like MCP's `CallToolResult`. */
export type WorkflowResult = {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** Set by the engine: `io.runifold/approvals` lists the receipts of the run's settled approvals. */
  _meta?: Record<string, unknown>;
};

/** An elicitation-shaped input request, exactly what MCP puts in `inputRequests[key]`. */
export type InputRequest = {
  method: "elicitation/create";
  params: {
    mode?: "form";
    message: string;
    requestedSchema: { type: "object"; properties: Record<string, Record<string, unknown>>; required?: string[] };
  };
};

/** MCP `ElicitResult`. */
export type InputResponse = {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
};

/** What a workflow declares it may ask while it runs (WorkflowDefinition.asks). */
export type WorkflowAsks = { input?: boolean; approval?: boolean };

export type Progress = { progress: number; total?: number; message?: string };

export type StepOptions = {
  /** Retry policy of this step, field by field over the workflow's `retry` (policy/retry-policy.ts). */
  retry?: RetryPolicy;
  /**
   * One execution may take this long: then the step's AbortSignal fires with a `StepTimeout` and the
   * execution counts as failed (retried by the policy like any other failure).
   */
  timeoutMs?: number;
  /** Shorthand: executions after the first (`retry.maxAttempts - 1`). */
  retries?: number;
  /** Shorthand: the first backoff (`retry.initialBackoffMs`). */
  backoffMs?: number;
};

/** What a step body receives. */
export type StepScope = {
  /** Fires when the run is cancelled, the lease is lost, the attempt ends or the step times out. */
  signal: AbortSignal;
  /** Which execution of this step this is (1 = the first); stored, so it survives crashes. */
  attempt: number;
};

/** requestInput's timeout: after `timeoutMs` the request takes `onTimeout` (default `"fail"`: the run fails). */
export type InputTimeout = { timeoutMs: number; onTimeout?: "fail" | InputResponse };

/**
 * The workflow ctx.child starts: its definition (its input is then checked at the start, before
 * anything is written) or its name and version (checked by the child's first attempt).
 */
export type ChildWorkflowRef<I> = WorkflowDefinition<I> | { name: string; version: number };

export type ChildOptions = {
  /** The child's history key (default: the workflow's name); unique per child in a `Promise.all`. */
  key?: string;
};

/** A started child workflow (ctx.child). */
export type ChildHandle = {
  /** The history key of the start, without its `child:` prefix (`invoice`, `repeat:invoice#2`). */
  readonly key: string;
  /** The child's task ID, once its start is recorded. */
  taskId(): Promise<string>;
  /**
   * Waits until the child ends — the run parks, holding no worker slot — and returns the child's
   * result (a completed child's `CallToolResult`, `isError` included). A failed or cancelled child
   * throws `ChildWorkflowFailed` (its task ID, status and public error), which the parent may catch.
   */
  result(): Promise<WorkflowResult>;
};

export type SignalResult<T> = { received: true; payload: T } | { received: false };

export type WorkflowContext = {
  readonly runId: string;
  readonly tenantId: string;
  /**
   * The claim number of this attempt (the lease's fencing token): it grows with every resumption,
   * so it is no retry count. A step body gets its own execution number as `attempt`.
   */
  readonly attempt: number;
  /** Fires when the run is cancelled, this worker loses its lease, or this attempt ends. */
  readonly signal: AbortSignal;
  /**
   * Runs `fn` at least once; its result is checkpointed exactly once and replayed afterwards. The
   * value returned is the JSON round trip of `fn`'s result, on the first execution as on replays
   * (a `Date` comes back as its ISO string both times).
   */
  step<T>(key: string, fn: (step: StepScope) => Promise<T> | T, options?: StepOptions): Promise<T>;
  /** A durable timer: the run parks and any worker resumes it after `ms`. */
  sleep(key: string, ms: number): Promise<void>;
  /** Waits durably for `sendSignal(runId, name, payload)`; with a timeout, resolves `{received:false}`. */
  waitForSignal<T = unknown>(name: string, options?: { timeoutMs?: number }): Promise<SignalResult<T>>;
  /** A durable interrupt: the run waits (`input_required`) until the keyed request is answered. */
  requestInput(key: string, request: InputRequest, timeout?: InputTimeout): Promise<InputResponse>;
  /** Several keyed requests outstanding at once; resolves when all are answered (or timed out). */
  requestInputs(requests: Record<string, InputRequest>, timeout?: InputTimeout): Promise<Record<string, InputResponse>>;
  /**
   * A human decision under a policy (docs/approvals.md): the run waits until the approvers' decisions
   * reach a quorum, a rejection quorum, or the expiry; returns the outcome, every decision (who,
   * through which channel, when, with what comment) and a signed receipt (compact JWS, ES256).
   */
  requestApproval(key: string, options: ApprovalOptions): Promise<ApprovalResult>;
  /**
   * Starts another workflow as a run of this tenant with its own task ID, linked to this one
   * (docs/authoring.md "Child workflows"). Durable: a replay never starts a second child. Returns
   * the handle at once; `await handle.result()` waits for the child's end. Cancelling this run
   * cancels its unfinished children.
   */
  child<I>(workflow: ChildWorkflowRef<I>, input: I, options?: ChildOptions): ChildHandle;
  /**
   * The time (milliseconds since the epoch, by the database's clock), recorded in the history the
   * first time this call is reached and returned as recorded on every replay: the clock to read
   * between steps. Resolves once the value is stored. Not in parallel branches (docs/authoring.md).
   */
  now(): Promise<number>;
  /** A random number in [0, 1), recorded once and replayed like `now()`. */
  random(): Promise<number>;
  /** A random UUID (v4), recorded once and replayed like `now()`: safe as an idempotency key for a step. */
  uuid(): Promise<string>;
  /**
   * A patch point inside a running version (docs/authoring.md "Versioning"): true for a run that
   * reaches this call on its first execution (the answer is recorded in its history as a marker),
   * false for a run that had already passed this point before the code changed. Write
   * `if (ctx.patched("id")) { new path } else { old path }`; synchronous, so no `await`.
   */
  patched(id: string): boolean;
  /** The next stage of a patch once no run still needs the old path: the new path only, nothing recorded. */
  deprecatePatch(id: string): void;
  /**
   * Starts this run again from the top with `input`, on a fresh history, as the same task (same task
   * ID, same subscriptions; docs/authoring.md "Continue-as-new"): what a long-lived loop calls every N
   * iterations so that the history a resume loads stays bounded. Never resolves; refused (the run
   * fails) while a child run has not ended or an approval is open. Unconsumed signals carry over.
   */
  continueAsNew(input: unknown): Promise<never>;
  /** Visible progress for clients and operators. Best effort: it never rejects. */
  progress(progress: Progress): Promise<void>;
  /**
   * A line on the run's timeline (operators see it on the task page). Best effort and written once:
   * a replay does not repeat the lines of the work it replays.
   */
  log(message: string, data?: Record<string, unknown>): Promise<void>;
};

/**
 * What `onFailure` receives as `ctx` (docs/authoring.md "Compensation"): steps and sleeps, checkpointed
 * under `onfailure:` history keys, so a worker that dies mid-compensation resumes it without running a
 * recorded compensation step again; and the body's completed steps. No waits for signals, input,
 * approvals or children: a compensation should not depend on anyone answering it.
 */
export type FailureContext = Pick<
  WorkflowContext,
  "runId" | "tenantId" | "attempt" | "signal" | "step" | "sleep" | "log" | "progress"
> & {
  /** The body's completed steps, in the order they completed (what a saga compensates: compensation/saga.ts). */
  readonly completedSteps: readonly CompletedStep[];
};

export type WorkflowDefinition<I = unknown> = {
  name: string;
  version: number;
  title?: string;
  description?: string;
  input: z.ZodType<I>;
  /** Optional schema of the result's `structuredContent`, published as the tool's output schema. */
  output?: z.ZodType;
  /**
   * Input requests a caller may answer before the run starts (MCP MRTR rounds on tools/call). The
   * workflow still asks for them with ctx.requestInput(key); answers given up front return at once.
   */
  preflight?: Record<string, InputRequest>;
  /**
   * What the workflow may ask while it runs, published with the definition so MCP capability gating
   * reads a declaration instead of guessing from history: `input` — questions for the caller or an
   * operator (ctx.requestInput/requestInputs; preflight requests imply it); `approval` — decisions
   * only operators give. Left out, the workflow is taken to ask anything (a client that cannot
   * answer questions is refused up front where its era can say so); `{}` says it never asks.
   */
  asks?: WorkflowAsks;
  /** The default retry policy of this workflow's steps. */
  retry?: RetryPolicy;
  /** The run's own timeout, from its creation: past it the run ends `failed` (`run_timeout`). */
  timeoutMs?: number;
  /**
   * How many attempts in a row may end without progress (a crashed or partitioned worker whose lease
   * expired) before the run is failed (`attempts_exhausted`). Resumptions never count. Default 10.
   */
  maxLostAttempts?: number;
  run(ctx: WorkflowContext, input: I): Promise<WorkflowResult>;
  /**
   * Compensation (docs/authoring.md "Compensation"): runs durably once the run fails or is cancelled.
   * Its steps are checkpointed under `onfailure:` keys, so a crash mid-compensation resumes it without
   * repeating finished steps; the run still ends failed (or cancelled) with its original cause.
   */
  onFailure?: (ctx: FailureContext, failure: RunFailure<I>) => Promise<void>;
  /** At most `limit` runs per key under way at once, per tenant (definitions/concurrency.ts). */
  concurrency?: ConcurrencyOption;
  /** Within a tenant, runs of a higher priority are claimed first (default 0, -1000..1000). */
  priority?: number;
};

export function defineWorkflow<I>(definition: WorkflowDefinition<I>): WorkflowDefinition<I> {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(definition.name)) throw new Error(`invalid workflow name "${definition.name}"`);
  if (!Number.isInteger(definition.version) || definition.version < 1) throw new Error("workflow version must be >= 1");
  if (definition.timeoutMs !== undefined && !(Number.isFinite(definition.timeoutMs) && definition.timeoutMs > 0))
    throw new Error("workflow timeoutMs must be a positive number");
  if (
    definition.maxLostAttempts !== undefined &&
    !(Number.isInteger(definition.maxLostAttempts) && definition.maxLostAttempts >= 1)
  )
    throw new Error("workflow maxLostAttempts must be an integer >= 1");
  if (definition.asks !== undefined) {
    const asks = definition.asks as Record<string, unknown>;
    const known = new Set(["input", "approval"]);
    if (typeof asks !== "object" || asks === null || Array.isArray(asks))
      throw new Error("workflow asks must be an object: { input?: boolean, approval?: boolean }");
    for (const [key, value] of Object.entries(asks)) {
      if (!known.has(key)) throw new Error(`workflow asks: unknown kind "${key}" (input, approval)`);
      if (typeof value !== "boolean" && value !== undefined) throw new Error(`workflow asks.${key} must be a boolean`);
    }
  }
  checkConcurrencyAndPriority(definition);
  return definition;
}

export function workflowKey(name: string, version: number): string {
  return `${name}@${version}`;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds workflows of every input type
export type AnyWorkflow = WorkflowDefinition<any>;

export type WorkflowRegistry = {
  get(name: string, version: number): AnyWorkflow | undefined;
  keys(): string[];
  all(): AnyWorkflow[];
};

export function createRegistry(definitions: AnyWorkflow[]): WorkflowRegistry {
  const byKey = new Map<string, AnyWorkflow>();
  for (const definition of definitions) {
    const key = workflowKey(definition.name, definition.version);
    if (byKey.has(key)) throw new Error(`workflow ${key} registered twice`);
    byKey.set(key, definition);
  }
  return {
    get: (name, version) => byKey.get(workflowKey(name, version)),
    keys: () => [...byKey.keys()],
    all: () => [...byKey.values()],
  };
}
