/** The Runifold MCP task client: usable from any Node program (no Next.js imports). */
export { McpTaskClient, type CallToolOptions, type ConnectOptions } from "./mcp-task-client";
export { McpAuthError, McpProtocolError, McpTransportError, NO_RPC_CODE, isTaskNotFound, type ErrorKind } from "./errors";
export { MODERN_PROTOCOL_VERSION, TASKS_EXTENSION, type ClientInfo } from "./modern-driver";
export { LEGACY_PROTOCOL_VERSION } from "./legacy-driver";
export { terminalOutcome } from "./normalize";
export { pollDelay } from "./wait";
export * from "./types";
export type { CallToolResult, ElicitParams, InputRequest, InputRequestHandler, InputResponse, TaskOutcome, TaskView } from "./types";
