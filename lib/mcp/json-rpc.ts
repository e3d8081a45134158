/** JSON-RPC 2.0 envelopes and the one error type the protocol layer throws. */
export type JsonRpcId = string | number;

export type JsonRpcRequest = { jsonrpc: "2.0"; id?: JsonRpcId; method: string; params?: Record<string, unknown> };

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingCapability: -32021,
  unsupportedVersion: -32022,
} as const;

/**
 * A protocol error: its code, message and data go to the client verbatim, with `httpStatus`
 * (2026-07-28 Streamable HTTP: -32020/-32021/-32022 and envelope errors are 400, unknown methods
 * 404; other errors travel in-band with 200) and any `headers` (Retry-After on a 429). Internal
 * causes are never put in here.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly httpStatus = 200,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function rpcResult(id: JsonRpcId | null, result: unknown) {
  return { jsonrpc: "2.0" as const, id, result };
}

/**
 * An error response. With no request id to answer (unparseable body, no or an invalid id), `id` is
 * omitted, not `null`: both eras' schemas type it `id?: RequestId` (2025-11-25 and 2026-07-28
 * schema.ts `JSONRPCErrorResponse`), and RequestId is a string or a number, never null. (JSON-RPC 2.0
 * itself says null; the MCP schema wins, and SDK v1's parser rejects a null id.)
 */
export function rpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown) {
  const error = data === undefined ? { code, message } : { code, message, data };
  return id === null ? { jsonrpc: "2.0" as const, error } : { jsonrpc: "2.0" as const, id, error };
}

/**
 * The request id if it is one MCP allows: a string or an integer (2025-11-25 basic/index.mdx
 * "Requests MUST include a string or integer ID"; RequestId in both schemas). Anything else, a
 * fractional number included, is not an id.
 */
export function validRequestId(id: unknown): JsonRpcId | null {
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}

/**
 * Never cached, and never re-encoded on the way out: `no-transform` makes the server's response
 * compression (Next's `compress`) pass these by. A JSON-RPC answer is a few hundred bytes, and
 * gzipping each one costs more than it saves: a zlib stream per response (its window allocated,
 * its work on the thread pool) added about 1 ms to a tools/call round trip on the bench machine.
 */
const NO_STORE = "no-store, no-transform";

/** What each JSON answer said, for an observer outside lib/mcp (jsonAnswerOf): no copy of the body to re-read. */
const answers = new WeakMap<Response, unknown>();

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  const response = new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": NO_STORE, ...headers },
  });
  answers.set(response, body);
  return response;
}

/**
 * The value a JSON answer of this handler carries (a JSON-RPC response or an array of them), or
 * undefined for an answer it did not build with jsonResponse (a stream). The metrics wrapper reads
 * the outcome here instead of cloning and parsing every response (lib/server/mcp-observe.ts).
 */
export function jsonAnswerOf(response: Response): unknown {
  return answers.get(response);
}

export function errorResponse(id: JsonRpcId | null, error: McpError): Response {
  return jsonResponse(rpcError(id, error.code, error.message, error.data), error.httpStatus, error.headers);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
