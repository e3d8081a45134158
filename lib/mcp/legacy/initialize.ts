import { SERVER_INFO } from "../server-info";
import { negotiateVersion, versionHasTasks } from "./protocol-version";

/**
 * `initialize`. Stateless: nothing is remembered (no Mcp-Session-Id is minted); every later request
 * states its version in the MCP-Protocol-Version header. `capabilities.tasks` is declared only when
 * the negotiated version has tasks; `list` and `cancel` are declared because both are implemented
 * and bound to the caller's API key (docs/mcp-legacy.md checklist L1; tasks.mdx "Security Considerations": only
 * receivers that can identify requestors should offer tasks/list).
 */
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
      "tasks/result; tasks/result streams any question a workflow asks as elicitation/create. Without tasks, a call waits " +
      "for its result up to the tool's deadline.",
  };
}
