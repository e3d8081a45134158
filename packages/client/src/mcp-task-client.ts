import type { EraDriver } from "./driver";
import { McpAuthError, McpTransportError } from "./errors";
import { LegacyDriver } from "./legacy-driver";
import { listenToTasks } from "./listen";
import { type ClientInfo, ModernDriver } from "./modern-driver";
import { RpcChannel } from "./transport";
import {
  type CallToolOutcome,
  DEFAULT_POLL_POLICY,
  type Era,
  type InputRequestHandler,
  type InputResponse,
  type PollPolicy,
  type TaskOutcome,
  type TaskView,
  type WaitOptions,
} from "./types";
import { waitForTask } from "./wait";

export type ConnectOptions = {
  /** API key (`rf_…`), sent as a Bearer token. */
  key?: string;
  /** Use tasks where the peer offers them (default true). false: every call takes the ordinary path. */
  tasks?: boolean;
  /** `auto` (default): modern first, legacy `initialize` as fallback. */
  era?: Era | "auto";
  clientInfo?: ClientInfo;
  /** Default answerer for MRTR rounds and task input (per-call options override it). */
  onInputRequest?: InputRequestHandler;
  pollPolicy?: Partial<PollPolicy>;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  signal?: AbortSignal;
};

export type CallToolOptions = {
  onInputRequest?: InputRequestHandler;
  inputResponses?: Record<string, InputResponse>;
  requestState?: string;
  signal?: AbortSignal;
};

const DEFAULT_CLIENT_INFO: ClientInfo = { name: "runifold-client", version: "0.1.0" };

/**
 * An MCP client for tool calls that may become durable tasks, in either protocol era: 2026-07-28 +
 * io.modelcontextprotocol/tasks, or 2025-11-25 experimental tasks. Stateless on the wire: a task ID
 * is all it takes to pick a task up again from a new client (after a restart of either side).
 */
export class McpTaskClient {
  private readonly policy: PollPolicy;

  private constructor(
    private readonly driver: EraDriver,
    private readonly options: ConnectOptions,
  ) {
    this.policy = { ...DEFAULT_POLL_POLICY, ...options.pollPolicy };
  }

  /**
   * Negotiates the era: `server/discover` first; a peer that refuses it (any non-auth error, HTTP
   * 4xx/5xx or a non-JSON-RPC answer) is asked to `initialize` at 2025-11-25 instead. Auth and
   * network failures are thrown as they are.
   */
  static async connect(url: string, options: ConnectOptions = {}): Promise<McpTaskClient> {
    const channel = new RpcChannel({ url, key: options.key, fetch: options.fetch, headers: options.headers });
    const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    const wantTasks = options.tasks !== false;
    const era = options.era ?? "auto";
    if (era !== "legacy") {
      try {
        return new McpTaskClient(await ModernDriver.discover(channel, clientInfo, wantTasks, options.signal), options);
      } catch (error) {
        if (era === "modern" || error instanceof McpAuthError || error instanceof McpTransportError || options.signal?.aborted)
          throw error;
      }
    }
    return new McpTaskClient(await LegacyDriver.initialize(channel, clientInfo, wantTasks, options.signal), options);
  }

  /** The negotiated protocol version (`2026-07-28`, `2025-11-25`, …). */
  get protocolVersion(): string {
    return this.driver.protocolVersion;
  }

  get era(): Era {
    return this.driver.era;
  }

  /** Whether tool calls may become tasks on this connection (peer offers them and they were wanted). */
  get tasksAvailable(): boolean {
    return this.driver.tasksAvailable;
  }

  /**
   * Calls a tool: `complete` (the result is here), `task` (follow it), or `input_required` (an MRTR
   * round no handler answered; call again with `inputResponses` and `requestState`).
   */
  callToolOutcome(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = {}): Promise<CallToolOutcome> {
    return this.driver.callTool(name, args, {
      ...options,
      onInputRequest: options.onInputRequest ?? this.options.onInputRequest,
    });
  }

  /** The current normalized state; throws McpProtocolError -32602 for unknown, foreign or expired IDs. */
  getTask(taskId: string, signal?: AbortSignal): Promise<TaskView> {
    return this.driver.getTask(taskId, signal);
  }

  /** Answers input requests by key (ElicitResult values); unknown or already answered keys are ignored. */
  updateTask(taskId: string, responses: Record<string, InputResponse>, signal?: AbortSignal): Promise<void> {
    return this.driver.updateTask(taskId, responses, signal);
  }

  /** Requests cancellation (cooperative: the task may take a moment, or end otherwise). No-op on terminal tasks. */
  cancelTask(taskId: string, signal?: AbortSignal): Promise<void> {
    return this.driver.cancelTask(taskId, signal);
  }

  /** Waits for the task's outcome; see WaitOptions. A deadline or abort never cancels the task. */
  waitTask(task: TaskView | string, options: WaitOptions = {}): Promise<TaskOutcome> {
    return waitForTask(
      this.driver,
      task,
      { ...options, onInputRequest: options.onInputRequest ?? this.options.onInputRequest },
      this.policy,
    );
  }

  /** Snapshots of the tasks (current state, then changes) until all are terminal. */
  listenTasks(taskIds: string[], options: { signal?: AbortSignal } = {}): AsyncGenerator<TaskView> {
    return listenToTasks(this.driver, taskIds, options, this.policy);
  }
}
