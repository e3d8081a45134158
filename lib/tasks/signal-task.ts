import { isTerminal, type RunStatus, sendSignalForTenant } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { type LookupContext, noteRefusedLookup } from "./denied-lookup-audit";
import { readTaskHandle } from "./queries/task-record";
import { isSignalName, SIGNAL_PAYLOAD_MAX_BYTES, unstorablePayloadReason } from "./signal-rules";

export type SignalTaskResult =
  | { outcome: "sent" }
  | { outcome: "not_found" }
  /** The task already ended: nothing would ever consume the signal, so it is refused, not stored. */
  | { outcome: "terminal"; status: RunStatus }
  | { outcome: "invalid_name" }
  | { outcome: "invalid_payload"; reason: string }
  | { outcome: "payload_too_large" };

/**
 * Sends a named signal to a task through its handle (the action beside cancelTaskByHandle and
 * answerTaskByHandle). The tenant comes from the caller's principal; another tenant's ID, an unknown
 * or malformed one and an expired handle are all "not_found". A live task stores the signal: a
 * workflow not yet waiting for that name consumes it when it does. The name and the stored JSON are
 * checked here, so every channel that signals by handle enforces the same rules.
 */
export async function signalTaskByHandle(
  sql: SqlHandle,
  params: { tenantId: string; taskId: string; name: string; payload: unknown; actor?: string; lookup?: LookupContext },
): Promise<SignalTaskResult> {
  if (!isSignalName(params.name)) return { outcome: "invalid_name" };
  const reason = unstorablePayloadReason(params.payload);
  if (reason) return { outcome: "invalid_payload", reason };
  // The stored JSON text, which may be longer than the body it was parsed from (1e20 → 21 digits).
  if (Buffer.byteLength(JSON.stringify(params.payload ?? null)) > SIGNAL_PAYLOAD_MAX_BYTES)
    return { outcome: "payload_too_large" };
  const handle = await readTaskHandle(sql, params);
  if (!handle) {
    // Signals bind to the tenant only (task-binding.ts), so only another tenant's task is foreign here.
    if (params.lookup) noteRefusedLookup(sql, { tenantId: params.tenantId, taskId: params.taskId, lookup: params.lookup });
    return { outcome: "not_found" };
  }
  if (isTerminal(handle.status)) return { outcome: "terminal", status: handle.status };
  const sent = await sendSignalForTenant(sql, {
    runId: params.taskId,
    tenantId: params.tenantId,
    name: params.name,
    payload: params.payload ?? null,
    actor: params.actor,
  });
  if (sent) return { outcome: "sent" };
  // Live a moment ago, refused now: it ended in between (terminal is final), or it has since been
  // purged or its handle expired, which answers like any unknown ID.
  const now = await readTaskHandle(sql, params);
  return now ? { outcome: "terminal", status: now.status } : { outcome: "not_found" };
}
