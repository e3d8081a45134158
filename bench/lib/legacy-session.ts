// One 2025-11-25 session on a Streamable HTTP server, opened the way a client does (initialize, then
// notifications/initialized), and the two requests the reference section repeats inside it: a task
// creation (tools/call with `task`) and tasks/get. Framed by tests/helpers/mcp-envelope.ts, as every
// bench and test request is.

import { LEGACY_VERSION, legacyPost, legacyRequest, type McpHttpRequest } from "../../tests/helpers/mcp-envelope";
import { jsonRpcAnswer } from "./json-rpc-body";

/** A server under test: its MCP URL, the headers every request carries, and the tool that creates a task. */
export type LegacyTarget = {
  name: string;
  url: string;
  /** A credential where the server needs one; the session header is added by openLegacySession. */
  headers: Record<string, string>;
  tool: { name: string; arguments: Record<string, unknown> };
};

/** Opens a session and returns the target with its `mcp-session-id` header added. */
export async function openLegacySession(target: LegacyTarget): Promise<LegacyTarget> {
  const init = legacyRequest(
    "initialize",
    { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: "runifold-bench", version: "1" } },
    { version: null, headers: target.headers },
  );
  const response = await fetch(target.url, init);
  const session = response.headers.get("mcp-session-id");
  const answer = await jsonRpcAnswer(response);
  if (answer.error || !session)
    throw new Error(`${target.name}: initialize answered ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
  const headers = { ...target.headers, "mcp-session-id": session };
  const ack = await fetch(target.url, legacyPost({ jsonrpc: "2.0", method: "notifications/initialized" }, { headers }));
  await ack.arrayBuffer();
  if (ack.status !== 202) throw new Error(`${target.name}: notifications/initialized answered ${ack.status}`);
  return { ...target, headers };
}

export const createTaskRequest = (target: LegacyTarget): McpHttpRequest =>
  legacyRequest("tools/call", { ...target.tool, task: { ttl: 300_000 } }, { headers: target.headers });

export const getTaskRequest = (target: LegacyTarget, taskId: string): McpHttpRequest =>
  legacyRequest("tasks/get", { taskId }, { headers: target.headers });

/** Sends one request and returns its JSON-RPC result, throwing on an error answer. */
export async function send(target: LegacyTarget, request: McpHttpRequest): Promise<Record<string, unknown>> {
  const response = await fetch(target.url, request);
  const answer = await jsonRpcAnswer(response);
  if (!answer.result) throw new Error(`${target.name}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.result;
}

/** The task ID of a CreateTaskResult. */
export const createdTaskId = (result: Record<string, unknown>): string => (result.task as { taskId: string }).taskId;
