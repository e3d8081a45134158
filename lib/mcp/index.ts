export type { McpHandlerDeps, McpPostHandler } from "./create-mcp-handler";
export { createMcpHandler, methodNotAllowed } from "./create-mcp-handler";
export { type CredentialLimits, createCredentialLimits } from "./credential-budgets";
export { isModernMessage } from "./era";
export { isJsonRequest, MAX_BODY_BYTES, readMcpBody } from "./handle-mcp-request";
export { jsonAnswerOf } from "./json-rpc";
export { ABANDONED_ROUND_REASON, cancelAbandonedRounds } from "./modern/abandoned-rounds";
export { createMcpSessionDeleteHandler } from "./session-delete";
export { createMcpStandaloneStreamHandler } from "./standalone-get";
