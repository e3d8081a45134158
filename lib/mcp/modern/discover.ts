import { MODERN_PROTOCOL_VERSIONS, TASKS_EXTENSION } from "../server-info";

/** server/discover: what this server speaks. The legacy `capabilities.tasks` MUST NOT appear here. */
export function discover() {
  return {
    resultType: "complete",
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
    instructions:
      "Tools run as durable tasks when you declare the io.modelcontextprotocol/tasks extension; follow them with tasks/get.",
    cacheScope: "private",
    ttlMs: 0,
  };
}
