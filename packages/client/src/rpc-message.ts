/** A JSON-RPC 2.0 request ID (JSON-RPC 2.0 §4: a string or a number; MCP forbids null). */
export type RpcId = string | number;

/**
 * Any JSON-RPC 2.0 message as it arrives on either channel (a POST's JSON answer or an SSE event):
 * a request, a notification or a response. Its own file so the SSE reader and the transport share it
 * without importing each other.
 */
export type RpcMessage = {
  jsonrpc?: "2.0";
  id?: RpcId | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};
