export const SERVER_INFO = { name: "runifold", title: "Runifold", version: "0.1.0" } as const;

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
export const MODERN_PROTOCOL_VERSIONS = ["2026-07-28"] as const;
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  relatedTask: "io.modelcontextprotocol/related-task",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** A modern result as it goes out: every result SHOULD carry `_meta[serverInfo]` (2026-07-28 basic/index.mdx). */
export function withServerInfo(result: unknown): Record<string, unknown> {
  const body = (result ?? {}) as Record<string, unknown> & { _meta?: object };
  return { ...body, _meta: { ...(body._meta ?? {}), [META.serverInfo]: SERVER_INFO } };
}
