import { isRecord, McpError, RPC } from "../json-rpc";
import { LEGACY_PROTOCOL_VERSIONS, META, MODERN_PROTOCOL_VERSIONS, TASKS_EXTENSION } from "../server-info";

export type ModernEnvelope = {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  /** This request (and only this one) declared the tasks extension. */
  declaresTasks: boolean;
  declaresElicitation: boolean;
};

/** Methods whose routing header `Mcp-Name` must equal a body field (2026-07-28 Streamable HTTP; ext-tasks). */
const NAME_FIELD: Record<string, string> = {
  "tools/call": "name",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/**
 * Validates the per-request `_meta` envelope and the routing headers of a modern request.
 * Every request states its own version and capabilities; nothing is inferred from earlier ones.
 */
export function readModernEnvelope(method: string, params: Record<string, unknown>, headers: Headers): ModernEnvelope {
  const meta = isRecord(params._meta) ? params._meta : {};
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") {
    throw new McpError(RPC.invalidParams, `Missing _meta["${META.protocolVersion}"]`, undefined, 400);
  }
  // The header must equal the body's version before the version is judged (streamable-http.mdx
  // "Protocol Version Header": a mismatch MUST be 400 HeaderMismatch), so a mismatch is -32020 even
  // when the body's version is one this server does not speak (review3 D6).
  checkHeader(headers, "mcp-protocol-version", version);
  if (!(MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    // basic/versioning.mdx: the error lists "the versions it does support" on this wire — exactly
    // server/discover's supportedVersions (the conformance check: supported ⊆ discover's list,
    // review3 D5). The legacy versions are served through initialize, which the message names.
    throw new McpError(
      RPC.unsupportedVersion,
      `Unsupported protocol version; this server also speaks ${LEGACY_PROTOCOL_VERSIONS.join(", ")} through initialize`,
      { supported: [...MODERN_PROTOCOL_VERSIONS], requested: version },
      400,
    );
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isRecord(capabilities)) {
    throw new McpError(RPC.invalidParams, `Missing _meta["${META.clientCapabilities}"]`, undefined, 400);
  }
  checkHeader(headers, "mcp-method", method);
  const nameField = NAME_FIELD[method];
  if (nameField) checkHeader(headers, "mcp-name", params[nameField]);
  const extensions = isRecord(capabilities.extensions) ? capabilities.extensions : {};
  return {
    protocolVersion: version,
    clientCapabilities: capabilities,
    declaresTasks: isRecord(extensions[TASKS_EXTENSION]),
    declaresElicitation: isRecord(capabilities.elicitation),
  };
}

/**
 * Headers that permit the Base64 sentinel (streamable-http.mdx "Value Encoding": `Mcp-Name` and
 * `Mcp-Param-{Name}`); every other header must equal the body's value literally (review3 D12).
 */
const SENTINEL_HEADERS = new Set(["mcp-name"]);

function checkHeader(headers: Headers, name: string, expected: unknown) {
  const raw = headers.get(name);
  if (raw === null) throw new McpError(RPC.headerMismatch, `Missing required header ${name}`, undefined, 400);
  const value = SENTINEL_HEADERS.has(name) ? decodeHeaderValue(raw) : raw.trim();
  if (typeof expected !== "string" || value !== expected) {
    throw new McpError(RPC.headerMismatch, `Header ${name} does not match the request body`, undefined, 400);
  }
}

/** Non-ASCII header values travel as `=?base64?<base64>?=` (2026-07-28 Streamable HTTP). */
function decodeHeaderValue(raw: string): string {
  const match = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(raw.trim());
  return match ? Buffer.from(match[1] ?? "", "base64").toString("utf8") : raw.trim();
}

export function missingTasksCapability(): McpError {
  return missingCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
}

/** -32021 whose `data.requiredCapabilities` lists exactly the missing capabilities (basic/index.mdx). */
export function missingCapabilities(requiredCapabilities: Record<string, unknown>): McpError {
  return new McpError(RPC.missingCapability, "Missing required client capability", { requiredCapabilities }, 400);
}
