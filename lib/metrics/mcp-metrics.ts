import { counter, histogram } from "./registry";

/**
 * The `method` label's values: the JSON-RPC methods either protocol era defines that this server
 * answers or a client commonly sends, plus `response` (a client's answer to our request), `batch`
 * (a 2025-03-26 array) and `invalid` (no JSON-RPC message at all). Anything else is `other`, so a
 * client cannot mint series by inventing method names.
 */
export const MCP_METHOD_LABELS = [
  "initialize",
  "ping",
  "server/discover",
  "tools/list",
  "tools/call",
  "tasks/get",
  "tasks/list",
  "tasks/result",
  "tasks/update",
  "tasks/cancel",
  "subscriptions/listen",
  "resources/list",
  "prompts/list",
  "logging/setLevel",
  "completion/complete",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "response",
  "batch",
  "invalid",
  "other",
] as const;

export type McpMethodLabel = (typeof MCP_METHOD_LABELS)[number];
export type McpEraLabel = "modern" | "legacy" | "unknown";
/** ok; error: a JSON-RPC error in a 2xx answer; denied: 401/403; client_error: other 4xx; server_error: 5xx or a throw. */
export type McpOutcome = "ok" | "error" | "denied" | "client_error" | "server_error";

const KNOWN = new Set<string>(MCP_METHOD_LABELS);

export function mcpMethodLabel(method: unknown): McpMethodLabel {
  return typeof method === "string" && KNOWN.has(method) ? (method as McpMethodLabel) : "other";
}

/** Seconds from a cached read to a long MRTR round or a blocking legacy call's first byte. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The MCP families, registered on first use (and by the metrics handler, so a scrape lists them before any request). */
export function mcpFamilies() {
  return {
    requests: counter({
      name: "runifold_mcp_requests_total",
      help: "MCP requests (POST /api/mcp) by protocol era, JSON-RPC method and outcome",
      labelNames: ["era", "method", "outcome"],
    }),
    duration: histogram({
      name: "runifold_mcp_request_duration_seconds",
      help: "Time to the response head of an MCP request (a streamed answer's stream may last longer)",
      labelNames: ["era", "method"],
      buckets: BUCKETS,
    }),
  };
}

export function recordMcpRequest(labels: { era: McpEraLabel; method: McpMethodLabel; outcome: McpOutcome }, seconds: number) {
  const families = mcpFamilies();
  families.requests.inc(labels);
  families.duration.observe({ era: labels.era, method: labels.method }, seconds);
}
