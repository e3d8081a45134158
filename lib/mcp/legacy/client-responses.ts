import type { InputResponse } from "@runifold/sdk";
import { answerTaskByHandle } from "../../tasks";
import { isElicitResult } from "../elicit-result";
import { isRecord, RPC } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { ANSWER_SCOPE, requireScope } from "../scopes";
import { readBoundTask } from "./bound-task";
import { parseElicitationRequestId } from "./elicitation-ids";

/**
 * A JSON-RPC *response* POSTed by the client: its answer to an `elicitation/create` we streamed on
 * some instance's tasks/result, or on the SSE stream of an ordinary tools/call that asked its
 * question inline (ordinary-stream.ts; same IDs). Whichever instance receives it writes it through the one
 * provideInput operation (docs/architecture.md "One round trip per transition"), so the task resumes wherever it runs. Streamable HTTP: a
 * response the server accepts gets 202 with no body.
 *
 * - An ID we never issued, or one for a task the caller cannot see (another key or tenant, expired),
 *   is ignored exactly alike: a response has no reply to carry an error, and no difference may
 *   reveal that a task exists. The binding is the same as tasks/result's, whose stream is the only
 *   legitimate source of these IDs.
 * - First answer wins: a late duplicate (another stream, an operator in the UI) is ignored.
 * - `accept`, `decline` and `cancel` results are recorded as given (the workflow reads the action;
 *   approve-expense treats anything but an accepted "approve" as a rejection).
 * - An `error` response means the client could not or would not answer: it counts as
 *   `{action: "cancel"}` (the user dismissed the question), except -32601, which says the client
 *   has no elicitation support at all — then the question stays open for an operator or another
 *   client instead of being cancelled on the user's behalf.
 * - A result that is not an ElicitResult is treated like an error response.
 * - A response to a URL-mode request (`rf-url:` IDs, url-input.ts) is never an answer: `accept` only
 *   says the user agreed to open the page (client/elicitation.mdx: "It does not mean that the
 *   interaction is complete"), and `decline`/`cancel` that they did not — the question stays open for
 *   its page, the console, the CLI or another client, and nothing is written.
 */
export async function acceptClientResponse(deps: McpDeps, call: McpCall, message: Record<string, unknown>): Promise<Response> {
  const accepted = new Response(null, { status: 202 });
  const target = parseElicitationRequestId(message.id);
  if (!target) {
    deps.logger.debug("legacy: ignored a response to an unknown request id");
    return accepted;
  }
  const task = await readBoundTask(deps.sql, call.principal, target.taskId);
  // Answering a task's question is a task write; answering the question an ordinary tools/call asked
  // inline (ordinary-stream.ts) is part of that call, which needed only `mcp` (as an MRTR retry does).
  // An ID the caller cannot see is held to the task rule, exactly like an unknown one.
  requireScope(call.principal, task?.origin === "ordinary" ? "mcp" : ANSWER_SCOPE);
  const response = toInputResponse(message);
  if (!response || !task) return accepted;
  if (target.url) {
    deps.logger.info("legacy URL-mode elicitation acknowledged", {
      taskId: target.taskId,
      key: target.key,
      action: response.action,
    });
    return accepted;
  }
  const outcome = await answerTaskByHandle(deps.sql, {
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    taskId: target.taskId,
    responses: { [target.key]: response },
    actor: call.principal.actor,
  });
  deps.logger.info("legacy elicitation answered", {
    taskId: target.taskId,
    key: target.key,
    action: response.action,
    accepted: outcome.accepted.includes(target.key),
    // An answer that fails the request's requestedSchema changes nothing: the question stays open
    // (a response has no reply to carry the error; the next tasks/result stream asks again).
    ...(outcome.invalid ? { invalid: outcome.invalid.message } : {}),
    // An approval decision decideApproval refused: audited there (approval.refused), nothing recorded.
    ...(outcome.refused ? { refused: outcome.refused.message } : {}),
  });
  return accepted;
}

function toInputResponse(message: Record<string, unknown>): InputResponse | undefined {
  if ("result" in message) {
    const result = isRecord(message.result) ? stripMeta(message.result) : undefined;
    return isElicitResult(result) ? result : { action: "cancel" };
  }
  const error = isRecord(message.error) ? message.error : {};
  return error.code === RPC.methodNotFound ? undefined : { action: "cancel" };
}

/** The answer is stored as the ElicitResult proper; transport-level `_meta` is not part of it. */
function stripMeta(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _ignored, ...rest } = result;
  return rest;
}
