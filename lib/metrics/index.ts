export type { McpEraLabel, McpMethodLabel, McpOutcome } from "./mcp-metrics";
export { MCP_METHOD_LABELS, mcpMethodLabel, recordMcpRequest } from "./mcp-metrics";
export type { MetricsHandlerDeps } from "./metrics-handler";
export { createMetricsHandler } from "./metrics-handler";
export { counter, gauge, histogram, webRegistry } from "./registry";
