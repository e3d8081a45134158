/**
 * The client's one view of MCP tasks, whichever protocol era the peer speaks. Wire shapes of
 * 2026-07-28 + io.modelcontextprotocol/tasks ("modern") and 2025-11-25 experimental tasks
 * ("legacy") are normalized into these types by lib/client/normalize.ts.
 */
export type Era = "modern" | "legacy";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

export const TERMINAL_STATUSES: readonly TaskStatus[] = ["completed", "failed", "cancelled"];

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** MCP `CallToolResult` (content blocks are passed through untouched). */
export type CallToolResult = {
  content: Array<{ type: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

/** A JSON Schema property of an elicitation form (the primitive subset MCP allows). */
export type SchemaProperty = {
  type?: "string" | "number" | "integer" | "boolean" | string;
  title?: string;
  description?: string;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: Array<{ const: unknown; title?: string }>;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  [key: string]: unknown;
};

export type ElicitParams = {
  mode?: string;
  message: string;
  requestedSchema?: { type: "object"; properties: Record<string, SchemaProperty>; required?: string[] };
  [key: string]: unknown;
};

/** One entry of `inputRequests` (modern) or one `elicitation/create` received on `tasks/result` (legacy). */
export type InputRequest = { method: string; params?: ElicitParams | Record<string, unknown> };

/** MCP `ElicitResult`, what answers an elicitation. */
export type InputResponse = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

export type TaskError = { code: number; message: string; data?: unknown };

/** One normalized task: modern DetailedTask fields, legacy Task mapped onto them. */
export type TaskView = {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Handle lifetime from creation, ms (`ttl` in the legacy era); null = unlimited. */
  ttlMs: number | null;
  /** The server's recommended polling interval, ms (`pollInterval` in the legacy era). */
  pollIntervalMs?: number;
  /** completed: the tool's result (`result.isError` = application error). */
  result?: CallToolResult;
  /** failed: the protocol error the task ended with. */
  error?: TaskError;
  /** input_required: every outstanding request by key. */
  inputRequests?: Record<string, InputRequest>;
  /** The era the view was read in, and the status exactly as that wire reported it. */
  era: Era;
  wireStatus: TaskStatus;
};

/**
 * What a tool call produced. `input_required` is an MRTR round (modern era, before any task exists)
 * that no `onInputRequest` callback answered: call again with `inputResponses` and `requestState`.
 */
export type CallToolOutcome =
  | { kind: "complete"; result: CallToolResult }
  | { kind: "task"; task: TaskView }
  | { kind: "input_required"; inputRequests: Record<string, InputRequest>; requestState?: string };

/** How a wait ended. Only the first three are terminal; the others leave the task running. */
export type TaskOutcome =
  | { kind: "completed"; task: TaskView; result: CallToolResult; isError: boolean }
  | { kind: "failed"; task: TaskView; error: TaskError }
  | { kind: "cancelled"; task: TaskView }
  | { kind: "input_required"; task: TaskView; inputRequests: Record<string, InputRequest> }
  | { kind: "timeout"; task: TaskView }
  | { kind: "aborted"; task: TaskView };

/**
 * Answers one input request. Return undefined to leave it unanswered (the wait then returns the
 * `input_required` state). `task` is absent for MRTR rounds, which happen before a task exists.
 * `context.signal` fires when the wait that asked ends (its deadline, or the caller's abort): an
 * answer given after that is not sent.
 */
export type InputRequestHandler = (
  key: string,
  request: InputRequest,
  task?: TaskView,
  context?: { signal?: AbortSignal },
) => Promise<InputResponse | undefined> | InputResponse | undefined;

/** The client's bounds on any server-recommended polling interval. */
export type PollPolicy = { minMs: number; maxMs: number; defaultMs: number };

export const DEFAULT_POLL_POLICY: PollPolicy = { minMs: 100, maxMs: 5_000, defaultMs: 1_000 };

export type WaitOptions = {
  /** Stop waiting after this many ms (the task keeps running): outcome `timeout`. */
  deadlineMs?: number;
  /** Stop waiting when aborted (the task keeps running): outcome `aborted`. */
  signal?: AbortSignal;
  onInputRequest?: InputRequestHandler;
  /** Called with every newly observed state (status, message or input requests changed). */
  onUpdate?: (task: TaskView) => void;
};
