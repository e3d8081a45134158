import { jsonResponse, RPC, rpcError } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { requestVersion } from "./protocol-version";

/** Versions whose transport requires receiving JSON-RPC batches; a request without a version header is 2025-03-26. */
const BATCH_VERSIONS = new Set(["2025-03-26", "2024-11-05"]);
/** A batch larger than this is refused as a whole (each element may start a run). */
export const MAX_BATCH_MESSAGES = 50;

/**
 * 2025-03-26 basic/index.mdx: implementations "MUST support receiving JSON-RPC batches", and
 * 2025-03-26 transports.mdx lets a POST body be an array of requests, notifications or responses.
 * This server negotiates 2025-03-26 and assumes it when no MCP-Protocol-Version header is sent and
 * no session says otherwise (protocol-version.ts requestVersion), so those requests get batches;
 * 2025-06-18 removed batching, and from then on an array is -32600.
 */
export function acceptsBatches(headers: Headers, session?: { protocolVersion: string }): boolean {
  return BATCH_VERSIONS.has(requestVersionOrUnsupported(headers, session));
}

function requestVersionOrUnsupported(headers: Headers, session?: { protocolVersion: string }): string {
  try {
    return requestVersion(headers, session);
  } catch {
    return "unsupported";
  }
}

/**
 * Each element is handled like a message of its own, in order, as plain JSON (a batch answer is one
 * JSON array; tasks/result waits in JSON mode). Requests' answers are collected, errors included;
 * notifications and responses contribute nothing. Only notifications/responses → 202 (transports
 * item 4); an empty array is one -32600 (JSON-RPC 2.0 "Batch").
 */
export async function handleLegacyBatch(
  deps: McpDeps,
  call: McpCall,
  batch: unknown[],
  handleOne: (deps: McpDeps, call: McpCall, message: unknown) => Promise<Response>,
): Promise<Response> {
  if (batch.length === 0) return jsonResponse(rpcError(null, RPC.invalidRequest, "Invalid Request: empty batch"), 400);
  if (batch.length > MAX_BATCH_MESSAGES) {
    return jsonResponse(
      rpcError(null, RPC.invalidRequest, `Invalid Request: at most ${MAX_BATCH_MESSAGES} messages per batch`),
      400,
    );
  }
  const headers = new Headers(call.request.headers);
  headers.set("accept", "application/json");
  const elementCall: McpCall = { ...call, request: new Request(call.request.url, { method: "POST", headers }) };
  const answers: unknown[] = [];
  for (const message of batch) {
    const response = await handleOne(deps, elementCall, message);
    if (response.status === 202) continue;
    const text = await response.text();
    if (text) answers.push(JSON.parse(text));
  }
  return answers.length === 0 ? new Response(null, { status: 202 }) : jsonResponse(answers);
}
