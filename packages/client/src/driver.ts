import type { CallToolOutcome, Era, InputRequestHandler, InputResponse, TaskView } from "./types";

export type CallOptions = {
  onInputRequest?: InputRequestHandler;
  /** Answers for an MRTR round the caller saw earlier (with its `requestState`). */
  inputResponses?: Record<string, InputResponse>;
  requestState?: string;
  signal?: AbortSignal;
};

/** What a wait loop needs from one era. */
export type AnswerState = { signal?: AbortSignal; answered: Set<string> };

/**
 * - `"unanswered"`: the handler left a request open; the wait returns `input_required`.
 * - a TaskView: the exchange saw the task end (legacy `tasks/result`), no poll needed.
 * - undefined: answers were sent (or the exchange broke off); keep polling.
 */
export type AnswerResult = "unanswered" | TaskView | undefined;

export type ListenEvent = { type: "ack"; taskIds: string[] } | { type: "task"; task: TaskView };

/** One protocol era's wire operations; McpTaskClient picks one at connect time. */
export interface EraDriver {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly tasksAvailable: boolean;
  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolOutcome>;
  getTask(taskId: string, signal?: AbortSignal): Promise<TaskView>;
  updateTask(taskId: string, responses: Record<string, InputResponse>, signal?: AbortSignal): Promise<void>;
  cancelTask(taskId: string, signal?: AbortSignal): Promise<void>;
  answerInput(task: TaskView, handler: InputRequestHandler, state: AnswerState): Promise<AnswerResult>;
  /** Pushed snapshots; absent where the peer cannot listen (callers poll instead). */
  listen?(taskIds: string[], signal?: AbortSignal): AsyncGenerator<ListenEvent>;
}
