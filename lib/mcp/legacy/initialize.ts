import { type JsonRpcId, jsonResponse, rpcResult } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { SERVER_INFO } from "../server-info";
import { negotiateVersion, versionHasTasks } from "./protocol-version";
import { mintSession, SESSION_HEADER } from "./session";

/**
 * `initialize`. The answer carries a fresh `Mcp-Session-Id` (session.ts) recording what the client
 * declared, so server-initiated requests (elicitation) go only to clients that declared them; every
 * later request still states its version in the MCP-Protocol-Version header, and a client that
 * ignores the session ID is served statelessly. `capabilities.tasks` is declared only when
 * the negotiated version has tasks; `list` and `cancel` are declared because both are implemented
 * and bound to the caller's API key (docs/mcp-legacy.md checklist L1; tasks.mdx "Security Considerations": only
 * receivers that can identify requestors should offer tasks/list).
 */
export async function initializeResponse(deps: McpDeps, call: McpCall, id: JsonRpcId, params: Record<string, unknown>) {
  const result = initialize(params);
  const sessionId = await mintSession(deps, call.principal, { protocolVersion: result.protocolVersion, params });
  return jsonResponse(rpcResult(id, result), 200, { [SESSION_HEADER]: sessionId });
}

export function initialize(params: Record<string, unknown>) {
  const protocolVersion = negotiateVersion(params.protocolVersion);
  const capabilities: Record<string, unknown> = { tools: {} };
  if (versionHasTasks(protocolVersion)) {
    capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  }
  return {
    protocolVersion,
    capabilities,
    serverInfo: SERVER_INFO,
    instructions:
      "Runifold runs each tool as a durable workflow. Call tools as tasks (params.task) to follow them with tasks/get and " +
      "tasks/result; to a client that declared elicitation, tasks/result streams any question a workflow asks as " +
      "elicitation/create. Without tasks, a call waits for its result up to the tool's deadline, and such a client is asked " +
      "the workflow's questions on the call's own stream.",
  };
}
