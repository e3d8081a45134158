import { readSse, type SseReader } from "./sse";
import { waitFor } from "./wait-for";

/**
 * A raw 2026-07-28 JSON-RPC client: every request carries its own _meta envelope and routing
 * headers, as the spec requires. Independent of our server code.
 */
export const TASKS_EXT = "io.modelcontextprotocol/tasks";
let nextId = 1;

// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON-RPC bodies
export type RawResponse = { status: number; body: any; headers: Headers };
type RequestExtra = { headers?: Record<string, string>; capabilities?: Record<string, unknown> };

export function modernClient(url: string, options: { token?: string; capabilities?: Record<string, unknown> } = {}) {
  const capabilities = options.capabilities ?? { elicitation: {}, extensions: { [TASKS_EXT]: {} } };
  function post(method: string, params: Record<string, unknown>, extra: RequestExtra): Promise<Response> {
    const name = method === "tools/call" ? params.name : method.startsWith("tasks/") ? params.taskId : undefined;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...extra.headers,
    };
    const body = {
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "runifold-tests", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": extra.capabilities ?? capabilities,
        },
      },
    };
    return fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  }
  async function request(method: string, params: Record<string, unknown> = {}, extra: RequestExtra = {}): Promise<RawResponse> {
    const response = await post(method, params, extra);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // SSE or empty body: left as text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }
  return {
    request,
    async result(method: string, params: Record<string, unknown> = {}) {
      const response = await request(method, params);
      if (response.body?.error)
        throw Object.assign(new Error(response.body.error.message), { code: response.body.error.code, response });
      return response.body.result;
    },
    /** A request whose SSE answer is read as it arrives (subscriptions/listen, a streamed tools/call). */
    async stream(method: string, params: Record<string, unknown> = {}, extra: RequestExtra = {}): Promise<SseReader> {
      return readSse(await post(method, params, extra));
    },
    /** Polls tasks/get until the task has one of `statuses`; fails with the task as last seen. */
    waitFor(taskId: string, statuses: string[], timeoutMs = 20_000) {
      return waitFor(
        async () => (await request("tasks/get", { taskId })).body.result,
        (task) => statuses.includes(task?.status),
        { describe: `task ${taskId} to be ${statuses.join(" or ")}`, timeoutMs, everyMs: 100 },
      );
    },
  };
}
