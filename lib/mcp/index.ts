export type { McpHandlerDeps } from "./create-mcp-handler";
export { createMcpHandler, methodNotAllowed } from "./create-mcp-handler";
