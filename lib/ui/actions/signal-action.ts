import "server-only";
import { z } from "zod";
import { actorLabel, audit } from "../../admin";
import { AppError } from "../../errors";
import { findTaskTenant, SIGNAL_PAYLOAD_MAX_BYTES, signalTaskByHandle } from "../../tasks";
import { type OperatorActionContext, operatorAction } from "./operator-action";

const ZSignal = z.object({
  taskId: z.string(),
  name: z.string().trim().min(1, "Give the signal a name."),
  /** The payload as the operator typed it: JSON text, empty for none (null). */
  payload: z.string().max(SIGNAL_PAYLOAD_MAX_BYTES * 2),
});

/**
 * Sends a named signal to a live task the operator may see (review F25: Temporal's Web UI "Send
 * signal"), through signalTaskByHandle — the rules of the HTTP signals API and the CLI, one path.
 * Another tenant's task is "not found" like a missing one; an ended task refuses, as the API does.
 */
export const signalTaskAction = operatorAction(ZSignal, signalTask);

async function signalTask(
  { sql, actor, operator }: OperatorActionContext,
  { taskId, name, payload }: z.output<typeof ZSignal>,
): Promise<{ name: string }> {
  const parsed = parsePayload(payload);
  const tenantId = await findTaskTenant(sql, { taskId, scope: operator.tenantIds });
  if (!tenantId) throw new AppError("not_found");
  const sent = await signalTaskByHandle(sql, { tenantId, taskId, name, payload: parsed, actor: actorLabel(actor) });
  switch (sent.outcome) {
    case "sent":
      await audit({ sql, actor }, "task.signal", { tenantId, taskId, name });
      return { name };
    case "not_found":
      throw new AppError("not_found");
    case "terminal":
      throw new AppError("conflict", `The task already ended (${sent.status}): nothing would receive the signal.`);
    case "invalid_name":
      throw new AppError("bad_request", "Signal names are 1–128 letters, digits or _ . : -");
    case "invalid_payload":
      throw new AppError("bad_request", `The payload cannot be stored: ${sent.reason}.`);
    case "payload_too_large":
      throw new AppError("bad_request", `The payload is over ${SIGNAL_PAYLOAD_MAX_BYTES} bytes of JSON.`);
  }
}

function parsePayload(text: string): unknown {
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError("bad_request", `The payload is not JSON: ${(error as Error).message}`);
  }
}
