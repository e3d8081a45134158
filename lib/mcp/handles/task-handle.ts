import type { WorkflowResult } from "@runifold/sdk";
import { isTerminalTaskStatus, statusMessageOf, type TaskRecord, type TaskStatus, taskStatus } from "../../tasks";
import { COMPANION } from "./companion-tools";

/** One question a task waits for, as the model needs it to answer with runifold_task_answer. */
type Question = { key: string; message: string; requestedSchema: unknown };

/** What a task waits for, when it is parked on something nameable. */
export type WaitingFor =
  | { kind: "input"; questions: Question[] }
  | { kind: "timer"; until: string }
  | { kind: "signal"; name: string; until?: string }
  /**
   * ctx.requestApproval: people decide (docs/approvals.md); the caller may, if the policy lets it, with
   * runifold_task_answer. `requestedSchema`: the decision form, present when this caller may decide now
   * (then the status is input_required).
   */
  | { kind: "approval"; key: string; until?: string; requestedSchema?: unknown };

/**
 * A task handle (DESIGN §8): what a client without tasks holds instead of a task. The status is the
 * extension's vocabulary (a tool result with isError is `completed`: its result says so).
 */
export type TaskHandle = {
  taskId: string;
  status: TaskStatus;
  statusMessage: string;
  waitingFor?: WaitingFor;
  pollAfterMs: number;
};

/** However long a task sleeps, a client is not told to look again later than this. */
const MAX_POLL_AFTER_MS = 3_600_000;
/** A question waits for a person: looking again sooner than this only repeats the handle. */
const QUESTION_POLL_AFTER_MS = 5_000;

export function taskHandle(record: TaskRecord, now = new Date()): TaskHandle {
  const status = taskStatus(record, "modern");
  const waitingFor = waitingForOf(record, status);
  return {
    taskId: record.id,
    status,
    statusMessage: statusMessageOf(record, now) ?? status,
    ...(waitingFor ? { waitingFor } : {}),
    pollAfterMs: pollAfter(record, waitingFor, now),
  };
}

function waitingForOf(record: TaskRecord, status: TaskStatus): WaitingFor | undefined {
  const detail = record.waitDetail;
  if ((record.status === "waiting_signal" || record.status === "waiting_input") && detail && "approval" in detail) {
    const { key, deadline } = detail.approval;
    const form = record.pendingInputs?.[key]?.params.requestedSchema;
    return {
      kind: "approval",
      key,
      ...(deadline ? { until: isoTime(deadline) } : {}),
      ...(form ? { requestedSchema: form } : {}),
    };
  }
  if (status === "input_required") {
    const questions = Object.entries(record.pendingInputs ?? {}).map(([key, request]) => ({
      key,
      message: request.params.message,
      requestedSchema: request.params.requestedSchema,
    }));
    return { kind: "input", questions };
  }
  if (record.status === "sleeping" && detail && "timer" in detail) return { kind: "timer", until: isoTime(detail.timer.wakeAt) };
  if (record.status === "waiting_signal" && detail && "signal" in detail) {
    const { name, deadline } = detail.signal;
    return { kind: "signal", name, ...(deadline ? { until: isoTime(deadline) } : {}) };
  }
  return undefined;
}

/** The engine stores times as Postgres renders them ("…14.822952+00:00"); handles speak ISO 8601 UTC. */
function isoTime(stored: string): string {
  const at = new Date(stored);
  return Number.isNaN(at.getTime()) ? stored : at.toISOString();
}

function pollAfter(record: TaskRecord, waitingFor: WaitingFor | undefined, now: Date): number {
  if (waitingFor?.kind === "input" || waitingFor?.kind === "approval")
    return Math.max(record.pollIntervalMs, QUESTION_POLL_AFTER_MS);
  if (waitingFor?.kind === "timer") {
    const untilWake = new Date(waitingFor.until).getTime() - now.getTime();
    return Math.min(MAX_POLL_AFTER_MS, Math.max(record.pollIntervalMs, Number.isFinite(untilWake) ? untilWake : 0));
  }
  return record.pollIntervalMs;
}

/**
 * The tool result carrying a handle: not an error (the work goes on), `structuredContent` = the
 * handle, and a text that tells the model what to call next. `lead` opens the text ("Still running
 * after 30s", "Answer recorded").
 */
export function handleResult(record: TaskRecord, lead?: string): WorkflowResult & { structuredContent: TaskHandle } {
  const handle = taskHandle(record);
  return {
    content: [{ type: "text", text: [lead, handleText(handle, record.tenantSlug)].filter(Boolean).join(". ") }],
    structuredContent: handle,
    isError: false,
  };
}

/** What the model should do next, naming the tool and its exact arguments. */
export function handleText(handle: TaskHandle, tenantSlug: string): string {
  const id = JSON.stringify({ taskId: handle.taskId });
  const waitCall = `${COMPANION.wait} ${id}`;
  if (isTerminalTaskStatus(handle.status)) {
    return `Task ${handle.taskId} has finished (${handle.status}). Call ${waitCall} to get its result.`;
  }
  if (handle.waitingFor?.kind === "input") {
    const asks = handle.waitingFor.questions
      .map((q) => `'${q.key}': ${q.message} (answer fields: structuredContent.waitingFor, requestedSchema)`)
      .join("; ");
    const first = handle.waitingFor.questions[0]?.key ?? "key";
    const answerCall = `${COMPANION.answer} ${JSON.stringify({ taskId: handle.taskId, key: first, response: { action: "accept", content: {} } })}`;
    return (
      `Task ${handle.taskId} is waiting for an answer. ${asks}. Ask the user, then call ${answerCall} with content filled in ` +
      `(an operator of ${tenantSlug} may also answer it in the Runifold console). Then call ${waitCall} for the result.`
    );
  }
  if (handle.waitingFor?.kind === "approval") {
    const decideCall = `${COMPANION.answer} ${JSON.stringify({
      taskId: handle.taskId,
      key: handle.waitingFor.key,
      response: { action: "accept", content: { decision: "approve", comment: "" } },
    })}`;
    if (handle.status === "input_required")
      return (
        `Task ${handle.taskId} is waiting for an approval your user may decide: ${handle.statusMessage}. Ask the user, then ` +
        `call ${decideCall} ("approve" or "reject"; form: structuredContent.waitingFor.requestedSchema). ` +
        `Then call ${waitCall} for the result.`
      );
    return (
      `Task ${handle.taskId} is waiting for an approval: ${handle.statusMessage}. The people who may decide do so in the ` +
      `Runifold console of ${tenantSlug}; if your user is one of them and says so, call ${decideCall} ("approve" or "reject"). ` +
      `Then call ${waitCall} for the result.`
    );
  }
  return (
    `Task ${handle.taskId} is still running: ${handle.statusMessage}. Call ${waitCall} to wait for its result ` +
    `(or ${COMPANION.status} ${id} to check on it, ${COMPANION.cancel} ${id} to stop it).`
  );
}
