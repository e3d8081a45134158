export type { McpHandlerDeps } from "./create-mcp-handler";
export { createMcpHandler, methodNotAllowed } from "./create-mcp-handler";
export { isModernMessage } from "./era";
export { createMcpSessionDeleteHandler } from "./session-delete";
