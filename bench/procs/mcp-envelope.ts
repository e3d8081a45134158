// The modern (2026-07-28) MCP request as the bench load processes send it: one JSON-RPC POST with the
// era's headers (mcp-method, mcp-name) and the _meta the tasks extension needs. Shared by mcp-load.ts
// (fetch) and http-load.ts (autocannon), so both measure the very same request.

export type HttpRequest = { method: string; headers: Record<string, string>; body: string };

let nextId = 1;

export function envelope(token: string, method: string, params: Record<string, unknown>): HttpRequest {
  const name = method === "tools/call" ? params.name : method.startsWith("tasks/") ? params.taskId : undefined;
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "runifold-bench", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
        },
      },
    }),
  };
}
