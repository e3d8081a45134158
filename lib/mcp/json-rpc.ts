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
 * 404; other errors travel in-band with 200). Internal causes are never put in here.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly httpStatus = 200,
  ) {
    super(message);
  }
}

export function rpcResult(id: JsonRpcId | null, result: unknown) {
  return { jsonrpc: "2.0" as const, id, result };
}

export function rpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown) {
  return { jsonrpc: "2.0" as const, id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}

export function errorResponse(id: JsonRpcId | null, error: McpError): Response {
  return jsonResponse(rpcError(id, error.code, error.message, error.data), error.httpStatus);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
