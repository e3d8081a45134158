import { modernRequest, WITH_ELICITATION } from "./mcp-envelope";
import { readSse, type SseReader } from "./sse";
import { waitFor } from "./wait-for";

/**
 * A raw 2026-07-28 JSON-RPC client: every request carries its own _meta envelope and routing
 * headers, as the spec requires (framed by mcp-envelope.ts). Independent of our server code.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON-RPC bodies
export type RawResponse = { status: number; body: any; headers: Headers };
type RequestExtra = { headers?: Record<string, string>; capabilities?: Record<string, unknown> };

export function modernClient(url: string, options: { token?: string; capabilities?: Record<string, unknown> } = {}) {
  function post(method: string, params: Record<string, unknown>, extra: RequestExtra): Promise<Response> {
    const capabilities = extra.capabilities ?? options.capabilities ?? WITH_ELICITATION;
    return fetch(url, modernRequest(method, params, { token: options.token, capabilities, headers: extra.headers }));
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
