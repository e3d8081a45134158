/** The Runifold MCP task client: usable from any Node program (no Next.js imports). */

export { type ErrorKind, isTaskNotFound, McpAuthError, McpProtocolError, McpTransportError, NO_RPC_CODE } from "./errors";
export { LEGACY_PROTOCOL_VERSION } from "./legacy-driver";
export { type CallToolOptions, type ConnectOptions, McpTaskClient } from "./mcp-task-client";
export { type ClientInfo, MODERN_PROTOCOL_VERSION, TASKS_EXTENSION } from "./modern-driver";
export { terminalOutcome } from "./normalize";
export type {
  CallToolResult,
  ElicitParams,
  InputRequest,
  InputRequestHandler,
  InputResponse,
  TaskOutcome,
  TaskView,
} from "./types";
export * from "./types";
export { pollDelay } from "./wait";
