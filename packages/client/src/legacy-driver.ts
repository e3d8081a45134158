import type { AnswerResult, AnswerState, CallOptions, EraDriver } from "./driver";
import { McpProtocolError } from "./errors";
import { answerAddress, inputKeyOf, inputRequestOf } from "./legacy-input";
import { fromLegacy, toolResult } from "./normalize";
import { readSse } from "./sse";
import { isResponse, type RpcChannel, type RpcMessage, readAnswer } from "./transport";
import type { CallToolOutcome, InputRequestHandler, InputResponse, TaskError, TaskView } from "./types";

export const LEGACY_PROTOCOL_VERSION = "2025-11-25";
/** How long a look at a waiting task's `tasks/result` stream may take to collect its questions. */
const PEEK_MS = 2_000;
/** After a question arrived, how long to wait for more before closing the look. */
const QUIET_MS = 300;

type ClientInfo = { name: string; version: string };

/**
 * Protocol 2025-11-25 with experimental tasks: `initialize`, `params.task` on tools whose
 * `execution.taskSupport` allows it, flat Tasks from `tasks/get`, the result (or the task's
 * JSON-RPC error) from `tasks/result`, and input as `elicitation/create` requests on a blocking
 * `tasks/result` stream, answered by POSTing JSON-RPC responses.
 */
export class LegacyDriver implements EraDriver {
  readonly era = "legacy" as const;
  private toolSupport?: Map<string, string>;

  private constructor(
    private readonly channel: RpcChannel,
    readonly protocolVersion: string,
    readonly tasksAvailable: boolean,
    private readonly sessionId?: string,
  ) {}

  static async initialize(
    channel: RpcChannel,
    clientInfo: ClientInfo,
    wantTasks: boolean,
    signal?: AbortSignal,
  ): Promise<LegacyDriver> {
    const params = { protocolVersion: LEGACY_PROTOCOL_VERSION, capabilities: { elicitation: { form: {} } }, clientInfo };
    const { id, response } = await channel.open("initialize", params, {}, signal);
    const result = (await readAnswer(response, id)) as {
      protocolVersion?: unknown;
      capabilities?: { tasks?: { requests?: { tools?: { call?: unknown } } } };
    };
    const version = typeof result?.protocolVersion === "string" ? result.protocolVersion : LEGACY_PROTOCOL_VERSION;
    const call = result?.capabilities?.tasks?.requests?.tools?.call;
    const tasks = wantTasks && version >= LEGACY_PROTOCOL_VERSION && typeof call === "object" && call !== null;
    const driver = new LegacyDriver(channel, version, tasks, response.headers.get("mcp-session-id") ?? undefined);
    await channel.send({ method: "notifications/initialized" }, driver.headers(), signal);
    return driver;
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolOutcome> {
    const asTask = this.tasksAvailable && (await this.taskSupport(name, options.signal)) !== "forbidden";
    const result = await this.request(
      "tools/call",
      { name, arguments: args, ...(asTask ? { task: {} } : {}) },
      options.signal,
      (message) => this.serve(message, options.onInputRequest),
    );
    if (typeof result.task === "object" && result.task !== null) return { kind: "task", task: fromLegacy(result.task) };
    return { kind: "complete", result: toolResult(result) };
  }

  async getTask(taskId: string, signal?: AbortSignal): Promise<TaskView> {
    const raw = await this.request("tasks/get", { taskId }, signal);
    if (raw.status === "completed" || raw.status === "failed") return fromLegacy(raw, await this.finalAnswer(taskId, signal));
    if (raw.status === "input_required") return fromLegacy(raw, { inputRequests: await this.peekInputRequests(taskId, signal) });
    return fromLegacy(raw);
  }

  /**
   * Answers the task's questions by key, and fails loudly when an answer did not land (review3
   * D10). Each answer is POSTed as a JSON-RPC response to the question's stable answer address
   * (`rf-input:<taskId>:<key>`, which Runifold accepts on any stream or none — so a question another
   * stream holds is answered too); a key the task still asks afterwards is answered on the task's
   * `tasks/result` stream (how other 2025-11-25 servers take answers). Answers still not taken — the
   * key is still asked, or the task still waits and its questions cannot be seen — reject.
   */
  async updateTask(taskId: string, responses: Record<string, InputResponse>, signal?: AbortSignal): Promise<void> {
    const wanted = new Map(Object.entries(responses));
    if (wanted.size === 0) return;
    const raw = await this.request("tasks/get", { taskId }, signal);
    if (raw.status !== "input_required") return;
    for (const [key, response] of wanted) await this.respond(answerAddress(taskId, key), response, signal);
    let left = await this.stillAsked(taskId, [...wanted.keys()], signal);
    if (left.keys.length > 0) {
      const retry = new Map(left.keys.map((key) => [key, wanted.get(key) as InputResponse]));
      await this.onResultStream(taskId, signal, PEEK_MS, async (message, stop) => {
        const response = retry.get(inputKeyOf(message, taskId));
        if (!response) return;
        await this.respond(message.id as string | number, response, signal);
        retry.delete(inputKeyOf(message, taskId));
        if (retry.size === 0) stop();
      });
      left = await this.stillAsked(taskId, left.keys, signal);
    }
    if (left.keys.length > 0) {
      throw new McpProtocolError({
        message: `The answer to ${left.keys.map((k) => `"${k}"`).join(", ")} was not accepted (it may not fit the question's requestedSchema); the task still asks for it`,
        code: -32602,
        data: { keys: left.keys },
      });
    }
    if (left.unseen) {
      throw new McpProtocolError({
        message:
          "Could not confirm the answer was delivered: the task still waits for input and its questions are held by another stream",
        code: -32602,
      });
    }
  }

  /**
   * Which of `keys` the task still asks, as far as a look at its `tasks/result` stream shows.
   * `unseen`: the task still waits for input but the look saw no question at all (another stream holds them).
   */
  private async stillAsked(taskId: string, keys: string[], signal?: AbortSignal): Promise<{ keys: string[]; unseen: boolean }> {
    const raw = await this.request("tasks/get", { taskId }, signal);
    if (raw.status !== "input_required") return { keys: [], unseen: false };
    const asked = await this.peekInputRequests(taskId, signal);
    return { keys: keys.filter((key) => key in asked), unseen: Object.keys(asked).length === 0 };
  }

  /** 2025-11-25 answers a terminal task with -32602; like the extension, that is a quiet no-op here. */
  async cancelTask(taskId: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.request("tasks/cancel", { taskId }, signal);
    } catch (error) {
      if (!(error instanceof McpProtocolError) || error.code !== -32602) throw error;
      const raw = await this.request("tasks/get", { taskId }, signal);
      if (raw.status !== "completed" && raw.status !== "failed" && raw.status !== "cancelled") throw error;
    }
  }

  /** Holds `tasks/result` open, answering its elicitations through the handler until the task ends or one is left open. */
  async answerInput(task: TaskView, handler: InputRequestHandler, state: AnswerState): Promise<AnswerResult> {
    let unanswered = false;
    let final: { result?: unknown; error?: TaskError } | undefined;
    try {
      final = await this.onResultStream(task.taskId, state.signal, undefined, async (message, stop) => {
        const key = inputKeyOf(message, task.taskId);
        if (state.answered.has(key)) return;
        const response = await handler(key, inputRequestOf(message), task);
        if (!response) {
          unanswered = true;
          return stop();
        }
        await this.respond(message.id as string | number, response, state.signal);
        state.answered.add(key);
      });
    } catch (error) {
      if (state.signal?.aborted || !(error instanceof McpProtocolError) || error.kind !== "http") throw error;
      return undefined; // the stream broke off: poll, and come back
    }
    if (unanswered) return "unanswered";
    if (!final) return undefined;
    return fromLegacy(await this.request("tasks/get", { taskId: task.taskId }, state.signal), final);
  }

  /**
   * Opens `tasks/result` and hands each elicitation to `onElicit`. Resolves with the task's final
   * answer when one arrives, or undefined when `stop()` was called or `limitMs` passed.
   */
  private async onResultStream(
    taskId: string,
    signal: AbortSignal | undefined,
    limitMs: number | undefined,
    onElicit: (message: RpcMessage, stop: () => void) => Promise<void>,
  ): Promise<{ result?: unknown; error?: TaskError } | undefined> {
    const local = new AbortController();
    const linked = signal ? AbortSignal.any([signal, local.signal]) : local.signal;
    const limit = limitMs === undefined ? undefined : setTimeout(() => local.abort(), limitMs);
    let stopped = false;
    const stop = () => {
      stopped = true;
    };
    try {
      const { id, response } = await this.channel.open("tasks/result", { taskId }, this.headers(), linked);
      if (!(response.headers.get("content-type") ?? "").includes("text/event-stream"))
        return await settle(readAnswer(response, id));
      for await (const message of readSse(response)) {
        if (isResponse(message)) {
          if (message.id === id) return await settle(readAnswerOf(message));
          continue;
        }
        if (message.method === "elicitation/create" && message.id !== undefined && message.id !== null)
          await onElicit(message, stop);
        else await this.serve(message, undefined);
        if (stopped) return undefined;
      }
      throw new McpProtocolError({ message: "tasks/result ended without an answer", kind: "http" });
    } catch (error) {
      if (local.signal.aborted && !signal?.aborted) return undefined;
      throw error;
    } finally {
      if (limit) clearTimeout(limit);
    }
  }

  /** Collects the questions a waiting task asks, without answering them. */
  private async peekInputRequests(taskId: string, signal?: AbortSignal) {
    const found: Record<string, ReturnType<typeof inputRequestOf>> = {};
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const local = new AbortController();
    const linked = signal ? AbortSignal.any([signal, local.signal]) : local.signal;
    try {
      await this.onResultStream(taskId, linked, PEEK_MS, async (message) => {
        found[inputKeyOf(message, taskId)] = inputRequestOf(message);
        if (quiet) clearTimeout(quiet);
        quiet = setTimeout(() => local.abort(), QUIET_MS);
      });
    } catch (error) {
      if (!local.signal.aborted || signal?.aborted) throw error;
    } finally {
      if (quiet) clearTimeout(quiet);
    }
    return found;
  }

  /** The stored result, or the task's replayed JSON-RPC error, of a completed or failed task. */
  private async finalAnswer(taskId: string, signal?: AbortSignal): Promise<{ result?: unknown; error?: TaskError }> {
    return settle(this.request("tasks/result", { taskId }, signal));
  }

  /** Requests the server sends outside a task's input (ordinary calls): elicitations go to the handler, or are cancelled. */
  private async serve(message: RpcMessage, handler: InputRequestHandler | undefined): Promise<void> {
    if (message.id === undefined || message.id === null || !message.method) return;
    if (message.method === "elicitation/create") {
      const response = handler ? await handler(inputKeyOf(message, ""), inputRequestOf(message)) : undefined;
      return this.respond(message.id, response ?? { action: "cancel" });
    }
    if (message.method === "ping") return this.respond(message.id, {});
    await this.channel.send(
      { id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } },
      this.headers(),
    );
  }

  private async respond(id: string | number, result: unknown, signal?: AbortSignal): Promise<void> {
    await this.channel.send({ id, result }, this.headers(), signal);
  }

  private async taskSupport(name: string, signal?: AbortSignal): Promise<string> {
    if (!this.toolSupport) {
      const support = new Map<string, string>();
      let cursor: string | undefined;
      do {
        const page = await this.request("tools/list", cursor ? { cursor } : {}, signal);
        for (const tool of (page.tools ?? []) as Array<{ name: string; execution?: { taskSupport?: string } }>) {
          support.set(tool.name, tool.execution?.taskSupport ?? "forbidden");
        }
        cursor = typeof page.nextCursor === "string" ? page.nextCursor : undefined;
      } while (cursor);
      this.toolSupport = support;
    }
    return this.toolSupport.get(name) ?? "forbidden";
  }

  private request(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    onMessage?: (m: RpcMessage) => Promise<void>,
  ) {
    return this.channel.call(method, params, this.headers(), { signal, onMessage });
  }

  private headers(): Record<string, string> {
    return { "mcp-protocol-version": this.protocolVersion, ...(this.sessionId ? { "mcp-session-id": this.sessionId } : {}) };
  }
}

function readAnswerOf(message: RpcMessage): Promise<unknown> {
  if (message.error)
    return Promise.reject(
      new McpProtocolError({ message: message.error.message, code: message.error.code, data: message.error.data }),
    );
  return Promise.resolve(message.result);
}

/** A JSON-RPC error replayed by `tasks/result` is the task's own error, not a failure of the call. */
async function settle(answer: Promise<unknown>): Promise<{ result?: unknown; error?: TaskError }> {
  try {
    return { result: await answer };
  } catch (error) {
    if (!(error instanceof McpProtocolError) || error.kind !== "rpc") throw error;
    return { error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } };
  }
}
