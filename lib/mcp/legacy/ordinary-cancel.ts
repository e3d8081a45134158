import { cancelRunForTenant } from "@runifold/sdk";
import { TERMINAL_STATUSES } from "@runifold/sdk/states";
import { findOrdinaryCallRuns, forgetOrdinaryCall, recordOrdinaryCall } from "../../../db/queries/mcp-ordinary-calls";
import type { TaskRecord } from "../../tasks";
import { isRecord, type JsonRpcId, validRequestId } from "../json-rpc";
import type { McpCall, McpDeps } from "../mcp-deps";
import { INLINE_ANSWER_WAIT_MS } from "./inline-clock";

/**
 * How long after an ordinary call started its request ID still names its run: the route's sync
 * deadline plus a few inline question episodes (inline-clock.ts), after which the call has answered
 * and a late cancellation has nothing to stop ("the request may have already completed").
 */
const CALL_ID_EXTRA_MS = 6 * INLINE_ANSWER_WAIT_MS;

/**
 * The status message of a run cancelled by the client's `notifications/cancelled`: the call's own
 * stream reads it to end without a response (cancellation.mdx: the receiver SHOULD "Not send a
 * response for the cancelled request"), whereas a run cancelled by anyone else (tasks/cancel, the
 * console) still answers the call with the cancelled result.
 */
export const CLIENT_CANCEL_REASON = "Cancelled by the client (notifications/cancelled)";

export function cancelledByClient(record: TaskRecord): boolean {
  return record.status === "cancelled" && record.statusMessage === CLIENT_CANCEL_REASON;
}

/**
 * Records which run an ordinary tools/call created under its JSON-RPC id (and session), so that a
 * cancellation POSTed to any instance finds it. Best effort: without the row the call simply
 * cannot be cancelled by notification (as before); a failed insert must not fail the call.
 */
export async function rememberOrdinaryCall(
  deps: McpDeps,
  call: McpCall,
  id: JsonRpcId,
  runId: string,
  syncDeadlineMs: number,
): Promise<void> {
  await recordOrdinaryCall(deps.sql, {
    runId,
    tenantId: call.principal.tenantId,
    keyId: call.principal.keyId,
    sessionIdSha256: call.session?.idSha256 ?? null,
    requestId: JSON.stringify(id),
    ttlMs: syncDeadlineMs + CALL_ID_EXTRA_MS,
  }).catch((error: Error) => deps.logger.warn("ordinary call not recorded for cancellation", { runId, error: error.message }));
}

/**
 * The call has been answered: its ID no longer names a request in progress, so a cancellation that
 * arrives later is ignored (cancellation.mdx: "the request may have already completed") rather than
 * cancelling a run the client was told to follow up as a task. Not called when the client merely
 * disconnected: it may still send the cancellation (2025-11-25 transports: disconnection is not
 * cancellation; the client SHOULD send notifications/cancelled). Done before the answer goes out, so a
 * cancellation sent after the client saw it finds nothing. Best effort: the row expires anyway.
 */
export async function forgetAnsweredCall(deps: McpDeps, runId: string): Promise<void> {
  await forgetOrdinaryCall(deps.sql, runId).catch((error: Error) =>
    deps.logger.debug("ordinary call id not forgotten", { runId, error: error.message }),
  );
}

/**
 * `notifications/cancelled` (2025-11-25 basic/utilities/cancellation.mdx): the client no longer
 * wants the answer to its request `requestId`. For an ordinary tools/call the run exists only for
 * that call, so "Stop processing the cancelled request" means cancelling the run, through the one
 * cancel path (cancelRun: the store, the run's event history with the client's actor, and the
 * NOTIFY that wakes the call's stream on whichever instance holds it). Request IDs are unique per
 * session (transports.mdx "Session Management"), so the match is (session, id) for the credential;
 * a client without a session is matched on (credential, id) only when exactly one live call has that
 * ID. Anything else — an unknown or ambiguous ID, a task-augmented request (those are cancelled
 * with tasks/cancel, tasks.mdx "Task Cancellation"), a call already answered, a malformed
 * notification — is ignored, as the spec asks ("MAY ignore … if the request is unknown").
 */
export async function acceptCancelledNotification(deps: McpDeps, call: McpCall, params: unknown): Promise<void> {
  const requestId = isRecord(params) ? validRequestId(params.requestId) : null;
  if (requestId === null) return;
  try {
    const runs = await findOrdinaryCallRuns(deps.sql, {
      tenantId: call.principal.tenantId,
      keyId: call.principal.keyId,
      sessionIdSha256: call.session?.idSha256 ?? null,
      requestId: JSON.stringify(requestId),
      terminalStatuses: TERMINAL_STATUSES,
    });
    const runId = runs.length === 1 ? runs[0] : undefined;
    if (!runId) return;
    const outcome = await cancelRunForTenant(deps.sql, {
      runId,
      tenantId: call.principal.tenantId,
      reason: CLIENT_CANCEL_REASON,
      actor: call.principal.actor,
    });
    const reason = isRecord(params) && typeof params.reason === "string" ? params.reason.slice(0, 200) : undefined;
    deps.logger.info("ordinary call cancelled by the client", { runId, outcome: outcome.outcome, reason });
  } catch (error) {
    // A notification has no response to carry an error; the call's own deadline still bounds it.
    deps.logger.warn("notifications/cancelled not applied", { error: (error as Error).message });
  }
}
