import type { AnswerResult, AnswerState, CallOptions, EraDriver, ListenEvent } from "./driver";
import { McpProtocolError } from "./errors";
import { fromModern, toolResult } from "./normalize";
import { readSse } from "./sse";
import { isResponse, type RpcChannel, readAnswer } from "./transport";
import type { CallToolOutcome, InputRequest, InputRequestHandler, InputResponse, TaskView } from "./types";

export const MODERN_PROTOCOL_VERSION = "2026-07-28";
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const META = "io.modelcontextprotocol/";
/** MRTR rounds before the client gives up on a tool call that keeps asking. */
const MAX_MRTR_ROUNDS = 8;

export type ClientInfo = { name: string; version: string };

/**
 * The 2026-07-28 wire + io.modelcontextprotocol/tasks: every request carries its own version,
 * client info and capabilities in `params._meta`, and the routing headers (MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name) that must match the body.
 */
export class ModernDriver implements EraDriver {
  readonly era = "modern" as const;
  readonly protocolVersion = MODERN_PROTOCOL_VERSION;

  private constructor(
    private readonly channel: RpcChannel,
    private readonly clientInfo: ClientInfo,
    readonly tasksAvailable: boolean,
  ) {}

  /** `server/discover`; throws when the peer does not answer as a 2026-07-28 server. */
  static async discover(
    channel: RpcChannel,
    clientInfo: ClientInfo,
    wantTasks: boolean,
    signal?: AbortSignal,
  ): Promise<ModernDriver> {
    const probe = new ModernDriver(channel, clientInfo, wantTasks);
    const result = await probe.request("server/discover", {}, signal);
    const versions = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
    if (!versions.includes(MODERN_PROTOCOL_VERSION)) {
      throw new McpProtocolError({ message: `The server does not support protocol ${MODERN_PROTOCOL_VERSION}`, kind: "http" });
    }
    const capabilities = (result.capabilities ?? {}) as { extensions?: Record<string, unknown> };
    const serverHasTasks = typeof capabilities.extensions?.[TASKS_EXTENSION] === "object";
    return new ModernDriver(channel, clientInfo, wantTasks && serverHasTasks);
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolOutcome> {
    let mrtr = options.inputResponses
      ? { inputResponses: options.inputResponses, requestState: options.requestState }
      : undefined;
    for (let round = 0; round < MAX_MRTR_ROUNDS; round++) {
      const result = await this.request("tools/call", { name, arguments: args, ...(mrtr ?? {}) }, options.signal);
      if (result.resultType === "task") return { kind: "task", task: fromModern(result) };
      if (result.resultType !== "input_required") return { kind: "complete", result: toolResult(result) };
      const inputRequests = (result.inputRequests ?? {}) as Record<string, InputRequest>;
      const requestState = typeof result.requestState === "string" ? result.requestState : undefined;
      const answers = options.onInputRequest ? await answerAll(inputRequests, options.onInputRequest) : undefined;
      if (!answers) return { kind: "input_required", inputRequests, ...(requestState ? { requestState } : {}) };
      mrtr = { inputResponses: { ...(mrtr?.inputResponses ?? {}), ...answers }, requestState };
    }
    throw new McpProtocolError({ message: `tools/call ${name} still asked for input after ${MAX_MRTR_ROUNDS} rounds` });
  }

  async getTask(taskId: string, signal?: AbortSignal): Promise<TaskView> {
    return fromModern(await this.request("tasks/get", { taskId }, signal));
  }

  async updateTask(taskId: string, responses: Record<string, InputResponse>, signal?: AbortSignal): Promise<void> {
    await this.request("tasks/update", { taskId, inputResponses: responses }, signal);
  }

  async cancelTask(taskId: string, signal?: AbortSignal): Promise<void> {
    await this.request("tasks/cancel", { taskId }, signal);
  }

  /** Asks the handler for every outstanding key not answered yet in this wait; sends what it gave with tasks/update. */
  async answerInput(task: TaskView, handler: InputRequestHandler, state: AnswerState): Promise<AnswerResult> {
    const responses: Record<string, InputResponse> = {};
    let unanswered = false;
    for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
      if (state.answered.has(key)) continue;
      const response = await handler(key, request, task);
      if (response) responses[key] = response;
      else unanswered = true;
    }
    if (Object.keys(responses).length > 0) {
      await this.updateTask(task.taskId, responses, state.signal);
      for (const key of Object.keys(responses)) state.answered.add(key);
      return undefined;
    }
    return unanswered ? "unanswered" : undefined;
  }

  /** `subscriptions/listen` with taskIds: the acknowledgement, then DetailedTask snapshots until the stream ends. */
  async *listen(taskIds: string[], signal?: AbortSignal): AsyncGenerator<ListenEvent> {
    const params = { notifications: { taskIds }, _meta: this.meta() };
    const { id, response } = await this.channel.open(
      "subscriptions/listen",
      params,
      this.headers("subscriptions/listen", params),
      signal,
    );
    const type = response.headers.get("content-type") ?? "";
    if (!type.includes("text/event-stream")) {
      // An error (or an immediate result) answered as plain JSON.
      await readAnswer(response, id);
      return;
    }
    for await (const message of readSse(response)) {
      if (isResponse(message)) {
        if (message.id !== id) continue;
        if (message.error)
          throw new McpProtocolError({ message: message.error.message, code: message.error.code, data: message.error.data });
        return;
      }
      const p = message.params ?? {};
      if (message.method === "notifications/subscriptions/acknowledged") {
        const filter = (p.notifications ?? {}) as { taskIds?: unknown };
        yield { type: "ack", taskIds: Array.isArray(filter.taskIds) ? filter.taskIds.map(String) : [] };
      } else if (message.method === "notifications/tasks") {
        const { _meta: _ignored, ...task } = p;
        yield { type: "task", task: fromModern(task) };
      }
    }
  }

  private async request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const framed = { ...params, _meta: this.meta() };
    return this.channel.call(method, framed, this.headers(method, framed), { signal });
  }

  private meta() {
    return {
      [`${META}protocolVersion`]: MODERN_PROTOCOL_VERSION,
      [`${META}clientInfo`]: this.clientInfo,
      [`${META}clientCapabilities`]: {
        elicitation: { form: {} },
        ...(this.tasksAvailable ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      },
    };
  }

  private headers(method: string, params: Record<string, unknown>): Record<string, string> {
    const name = method === "tools/call" ? params.name : method.startsWith("tasks/") ? params.taskId : undefined;
    return {
      "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": headerValue(name) } : {}),
    };
  }
}

/** Non-ASCII header values travel as `=?base64?…?=` (2026-07-28 Streamable HTTP). */
export function headerValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** Every request answered, or undefined when the handler left one open. */
async function answerAll(
  requests: Record<string, InputRequest>,
  handler: InputRequestHandler,
): Promise<Record<string, InputResponse> | undefined> {
  const answers: Record<string, InputResponse> = {};
  for (const [key, request] of Object.entries(requests)) {
    const response = await handler(key, request);
    if (!response) return undefined;
    answers[key] = response;
  }
  return answers;
}
