import type { z } from "zod";

/** A content block of a tool result (MCP `ContentBlock`, the subset workflows produce). */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string };

/** What a workflow returns: shaped like MCP's `CallToolResult`. */
export type WorkflowResult = {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
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

export type Progress = { progress: number; total?: number; message?: string };

export type StepOptions = {
  /** Attempts after the first; default 2. `NonRetryableError` is never retried. */
  retries?: number;
  /** First backoff; doubles on each retry. Default 100 ms. */
  backoffMs?: number;
};

export type SignalResult<T> = { received: true; payload: T } | { received: false };

export type WorkflowContext = {
  readonly runId: string;
  readonly tenantId: string;
  readonly attempt: number;
  /** Fires when the run is cancelled or this worker loses its lease. */
  readonly signal: AbortSignal;
  /** Runs `fn` at least once; its result is checkpointed exactly once and replayed afterwards. */
  step<T>(key: string, fn: (step: { signal: AbortSignal }) => Promise<T> | T, options?: StepOptions): Promise<T>;
  /** A durable timer: the run parks and any worker resumes it after `ms`. */
  sleep(key: string, ms: number): Promise<void>;
  /** Waits durably for `sendSignal(runId, name, payload)`; with a timeout, resolves `{received:false}`. */
  waitForSignal<T = unknown>(name: string, options?: { timeoutMs?: number }): Promise<SignalResult<T>>;
  /** A durable interrupt: the run waits (`input_required`) until the keyed request is answered. */
  requestInput(key: string, request: InputRequest): Promise<InputResponse>;
  /** Several keyed requests outstanding at once; resolves when all are answered. */
  requestInputs(requests: Record<string, InputRequest>): Promise<Record<string, InputResponse>>;
  /** Visible progress for clients and operators. */
  progress(progress: Progress): Promise<void>;
};

export type WorkflowDefinition<I = unknown> = {
  name: string;
  version: number;
  title?: string;
  description?: string;
  input: z.ZodType<I>;
  /**
   * Input requests a caller may answer before the run starts (MCP MRTR rounds on tools/call). The
   * workflow still asks for them with ctx.requestInput(key); answers given up front return at once.
   */
  preflight?: Record<string, InputRequest>;
  run(ctx: WorkflowContext, input: I): Promise<WorkflowResult>;
};

export function defineWorkflow<I>(definition: WorkflowDefinition<I>): WorkflowDefinition<I> {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(definition.name)) throw new Error(`invalid workflow name "${definition.name}"`);
  if (!Number.isInteger(definition.version) || definition.version < 1) throw new Error("workflow version must be >= 1");
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
