import { McpError, RPC } from "../json-rpc";
import { LEGACY_PROTOCOL_VERSIONS } from "../server-info";

/** The first protocol version with (experimental) tasks: `params.task`, `tasks/*`, `capabilities.tasks`. */
export const TASKS_PROTOCOL_VERSION = "2025-11-25";

/**
 * Streamable HTTP (2025-06-18 and later): without an `MCP-Protocol-Version` header, "and has no other
 * way to identify the version — for example, by relying on the protocol version negotiated during
 * initialization", the server SHOULD assume 2025-03-26. A request in a session has that other way:
 * the version its initialize negotiated (review3 D13).
 */
const VERSION_WITHOUT_HEADER = "2025-03-26";

/**
 * `initialize`: echo a legacy version the client asked for, otherwise offer the newest legacy one
 * (basic/lifecycle "Version Negotiation"). A client asking for 2026-07-28 here gets 2025-11-25 and
 * may disconnect; modern clients do not initialize at all.
 */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" && (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : TASKS_PROTOCOL_VERSION;
}

/**
 * The version this request speaks: its header; without one, its session's negotiated version; else
 * 2025-03-26. An unsupported header value is refused with 400 (basic/transports "Protocol Version
 * Header": the server MUST respond 400 Bad Request).
 */
export function requestVersion(headers: Headers, session?: { protocolVersion: string }): string {
  const raw = headers.get("mcp-protocol-version");
  if (raw === null) return session?.protocolVersion ?? VERSION_WITHOUT_HEADER;
  const version = raw.trim();
  if (!(LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    throw new McpError(
      RPC.invalidRequest,
      `Unsupported MCP-Protocol-Version: ${version.slice(0, 40)}`,
      {
        supported: [...LEGACY_PROTOCOL_VERSIONS],
      },
      400,
    );
  }
  return version;
}

/** Versions before 2025-11-25 have no tasks: their `params.task` is ignored (tasks.mdx "Task Support and Handling"). */
export function versionHasTasks(version: string): boolean {
  return version >= TASKS_PROTOCOL_VERSION;
}
