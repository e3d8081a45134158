/**
 * The JSON-RPC requests an MCP client POSTs to /api/mcp, per protocol era, built in one place:
 *  - modern (2026-07-28): every request is self-contained, so it carries the era's routing headers
 *    (MCP-Protocol-Version, Mcp-Method, Mcp-Name) and its own `_meta` (protocol version, client
 *    info, client capabilities);
 *  - legacy (2025-11-25 and earlier): the version header (omitted before initialize) and a bare body.
 * Written from the spec, independent of the server's code (lib/mcp), so a framing mistake there
 * is not shared by the tests that check it.
 *
 * The bench's load processes (bench/procs, bench/mcp-http.ts) build their requests here too: the
 * bench already serves the plain handler through tests/helpers (mcp-server-process.ts), and one
 * builder means the load it measures is the request the tests check. It lives in tests/helpers,
 * not in lib/, because no production code may frame client requests.
 */
export const MODERN_VERSION = "2026-07-28";
export const LEGACY_VERSION = "2025-11-25";
export const TASKS_EXT = "io.modelcontextprotocol/tasks";

/** Client capabilities: the tasks extension alone, and with form elicitation (a client that can answer input requests). */
export const TASKS_ONLY: Record<string, unknown> = { extensions: { [TASKS_EXT]: {} } };
export const WITH_ELICITATION: Record<string, unknown> = { elicitation: {}, extensions: { [TASKS_EXT]: {} } };

/** One POST, usable as fetch's RequestInit and as an autocannon request alike. */
export type McpHttpRequest = { method: "POST"; headers: Record<string, string>; body: string };

type Common = {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The JSON-RPC id (default: the next of a per-process counter). */
  id?: number | string;
  /** Accept (default: both answer forms, as the Streamable HTTP transport requires). */
  accept?: string;
  /** Added last: they override the builder's. */
  headers?: Record<string, string>;
};

export type ModernOptions = Common & {
  /** `io.modelcontextprotocol/clientCapabilities` (default WITH_ELICITATION). */
  capabilities?: Record<string, unknown>;
  /** `io.modelcontextprotocol/clientInfo`, or null to leave it out (it is optional). */
  clientInfo?: { name: string; version: string } | null;
  /** More `_meta` entries (an idempotency key, a related task), merged after the builder's. */
  meta?: Record<string, unknown>;
};

export type LegacyOptions = Common & {
  /** MCP-Protocol-Version (default 2025-11-25); null sends none, as before initialize. */
  version?: string | null;
};

const CLIENT_INFO = { name: "runifold-tests", version: "1" };
let nextId = 1;

/**
 * The name a modern request routes by (2026-07-28 Streamable HTTP, the Mcp-Name header): a tool's
 * name on tools/call, the task's ID on tasks/*, none otherwise.
 */
export function routedName(method: string, params: Record<string, unknown>): string | undefined {
  const name = method === "tools/call" ? params.name : method.startsWith("tasks/") ? params.taskId : undefined;
  return typeof name === "string" ? name : undefined;
}

/** The `_meta` a modern request carries. */
export function modernMeta(options: Pick<ModernOptions, "capabilities" | "clientInfo" | "meta"> = {}): Record<string, unknown> {
  const clientInfo = options.clientInfo === undefined ? CLIENT_INFO : options.clientInfo;
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    ...(clientInfo ? { "io.modelcontextprotocol/clientInfo": clientInfo } : {}),
    "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? WITH_ELICITATION,
    ...options.meta,
  };
}

/** A 2026-07-28 request: routing headers, and `_meta` inside params. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, options: ModernOptions = {}): McpHttpRequest {
  const name = routedName(method, params);
  return {
    method: "POST",
    headers: {
      ...baseHeaders(options),
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": method,
      ...(name !== undefined ? { "mcp-name": name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: options.id ?? nextId++,
      method,
      params: { ...params, _meta: modernMeta(options) },
    }),
  };
}

/** A legacy request for `method`; `legacyPost` sends any body (a notification, a response, a batch). */
export function legacyRequest(method: string, params: Record<string, unknown> = {}, options: LegacyOptions = {}): McpHttpRequest {
  return legacyPost({ jsonrpc: "2.0", id: options.id ?? nextId++, method, params }, options);
}

export function legacyPost(body: unknown, options: LegacyOptions = {}): McpHttpRequest {
  const version = options.version === undefined ? LEGACY_VERSION : options.version;
  return {
    method: "POST",
    headers: {
      ...baseHeaders(options),
      ...(version ? { "mcp-protocol-version": version } : {}),
      ...options.headers,
    },
    body: JSON.stringify(body),
  };
}

function baseHeaders(options: Common): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: options.accept ?? "application/json, text/event-stream",
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  };
}
