export type { McpHandlerDeps } from "./create-mcp-handler";
export { createMcpHandler, methodNotAllowed } from "./create-mcp-handler";
export { type CredentialLimits, createCredentialLimits } from "./credential-limits";
export { isModernMessage } from "./era";
export { MAX_BODY_BYTES } from "./handle-mcp-request";
export { createMcpSessionDeleteHandler } from "./session-delete";
export { createMcpStandaloneStreamHandler } from "./standalone-get";
