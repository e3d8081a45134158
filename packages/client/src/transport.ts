import { McpAuthError, McpProtocolError, McpTransportError } from "./errors";
import type { RpcId, RpcMessage } from "./rpc-message";
import { readSse } from "./sse";

export type { RpcId, RpcMessage } from "./rpc-message";

/** Called with every message of an SSE answer that is not the awaited response (notifications, server requests). */
export type MessageHandler = (message: RpcMessage) => void | Promise<void>;

export type ChannelConfig = {
  url: string;
  /** API key, sent as `Authorization: Bearer <key>`. */
  key?: string;
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
};

/**
 * JSON-RPC over Streamable HTTP POSTs, era-agnostic: framing (`_meta`, version headers) is the
 * caller's. Answers may be JSON or SSE; 401/403 become McpAuthError, network failures
 * McpTransportError, JSON-RPC errors McpProtocolError with the peer's code.
 */
export class RpcChannel {
  private nextId = 1;
  private readonly fetchImpl: typeof fetch;

  constructor(readonly config: ChannelConfig) {
    this.fetchImpl = config.fetch ?? fetch;
  }

  /** Sends a request and returns its result. */
  async call(
    method: string,
    params: Record<string, unknown>,
    headers: Record<string, string>,
    options: { signal?: AbortSignal; onMessage?: MessageHandler } = {},
  ): Promise<Record<string, unknown>> {
    const { id, response } = await this.open(method, params, headers, options.signal);
    const result = await readAnswer(response, id, options.onMessage);
    if (typeof result !== "object" || result === null) {
      throw new McpProtocolError({ message: `Malformed ${method} result`, kind: "http", httpStatus: response.status });
    }
    return result as Record<string, unknown>;
  }

  /** Sends a request and returns the raw HTTP response (for long-lived SSE answers). */
  async open(
    method: string,
    params: Record<string, unknown>,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<{ id: RpcId; response: Response }> {
    const id = this.nextId++;
    const response = await this.post({ jsonrpc: "2.0", id, method, params }, headers, signal);
    return { id, response };
  }

  /** Sends a notification or a response to a server request; the answer body is ignored. */
  async send(message: RpcMessage, headers: Record<string, string>, signal?: AbortSignal): Promise<void> {
    const response = await this.post({ jsonrpc: "2.0", ...message }, headers, signal);
    if (!response.ok) {
      const answer = await parseBody(response);
      throw httpError(response, answer);
    }
    await response.body?.cancel().catch(() => {});
  }

  private async post(body: RpcMessage, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    const allHeaders: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(this.config.key ? { authorization: `Bearer ${this.config.key}` } : {}),
      ...this.config.headers,
      ...headers,
    };
    let response: Response;
    try {
      response = await this.fetchImpl(this.config.url, {
        method: "POST",
        headers: allHeaders,
        body: JSON.stringify(body),
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new McpTransportError(
        `Cannot reach ${this.config.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
        error,
      );
    }
    if (response.status === 401 || response.status === 403) {
      const answer = await parseBody(response);
      const rpc = rpcErrorOf(answer);
      const message =
        rpc?.message ??
        messageOf(answer) ??
        (response.status === 401 ? "Unauthorized: a valid API key is required" : "Forbidden");
      throw new McpAuthError({ message, code: rpc?.code, data: rpc?.data, httpStatus: response.status });
    }
    return response;
  }
}

/** The result of request `id` from a JSON or SSE answer; other SSE messages go to `onMessage`. */
export async function readAnswer(response: Response, id: RpcId, onMessage?: MessageHandler): Promise<unknown> {
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream")) {
    for await (const message of readSse(response)) {
      if (isResponse(message) && message.id === id) return unwrap(message, response.status);
      await onMessage?.(message);
    }
    throw new McpProtocolError({
      message: "The stream ended before the response arrived",
      kind: "http",
      httpStatus: response.status,
    });
  }
  const answer = await parseBody(response);
  if (isResponse(answer)) return unwrap(answer as RpcMessage, response.status);
  throw httpError(response, answer);
}

/** A JSON-RPC response (result or error), as opposed to a request or notification. */
export function isResponse(message: unknown): boolean {
  if (typeof message !== "object" || message === null) return false;
  const m = message as RpcMessage;
  return m.method === undefined && ("result" in m || "error" in m);
}

function unwrap(message: RpcMessage, httpStatus: number): unknown {
  if (message.error) {
    const { code, message: text, data } = message.error;
    throw new McpProtocolError({
      message: String(text ?? "Error"),
      code: typeof code === "number" ? code : undefined,
      data,
      httpStatus,
    });
  }
  return message.result;
}

async function parseBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => "");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function rpcErrorOf(answer: unknown): RpcMessage["error"] | undefined {
  const error = isResponse(answer) ? (answer as RpcMessage).error : undefined;
  return error && typeof error.code === "number" ? error : undefined;
}

function messageOf(answer: unknown): string | undefined {
  if (typeof answer === "object" && answer !== null && typeof (answer as { message?: unknown }).message === "string") {
    return (answer as { message: string }).message;
  }
  return undefined;
}

function httpError(response: Response, answer: unknown): McpProtocolError {
  const rpc = rpcErrorOf(answer);
  if (rpc) return new McpProtocolError({ message: rpc.message, code: rpc.code, data: rpc.data, httpStatus: response.status });
  const detail =
    messageOf(answer) ?? (typeof answer === "string" && answer.length > 0 ? answer.slice(0, 200) : response.statusText);
  return new McpProtocolError({
    message: `HTTP ${response.status}: ${detail || "not a JSON-RPC answer"}`,
    kind: "http",
    httpStatus: response.status,
  });
}
