import type { TaskRecord } from "./queries/task-record";

/** The parts of a record a status message is made of. */
export type DescribedRecord = Pick<
  TaskRecord,
  "status" | "statusMessage" | "tenantSlug" | "waitDetail" | "progress" | "pendingInputs" | "terminal"
>;

/**
 * What a task is doing, in words a model can relay to its user, the same in every view (tasks/get
 * of both eras, listen snapshots, legacy status notifications, task handles): "Waiting for an
 * operator of tenant-acme to answer 'decision'", "Sleeping until 14:00 UTC", "Waiting for signal
 * 'window-open'". Only what the store says: the wait the engine recorded, the run's own progress
 * line, the terminal cause. `now` decides whether a time needs its date.
 */
export function statusMessageOf(record: DescribedRecord, now: Date = new Date()): string | undefined {
  if (record.terminal?.error) return record.terminal.error.message;
  switch (record.status) {
    case "cancelled":
      return record.statusMessage ?? "Cancelled";
    case "failed":
      return record.statusMessage ?? "Failed";
    case "completed":
      return record.terminal?.result?.isError ? "Completed with a tool error" : "Completed";
    case "waiting_input":
      // An approval this caller may decide reads as input (approval-view.ts): it is still the approval.
      if (record.waitDetail && "approval" in record.waitDetail) return waitingForApproval(record.waitDetail.approval, now);
      return waitingForInput(record) ?? record.progress?.message;
    case "sleeping": {
      const timer = record.waitDetail && "timer" in record.waitDetail ? record.waitDetail.timer : undefined;
      if (!timer) return record.progress?.message ?? "Sleeping";
      const until = utcTime(new Date(timer.wakeAt), now);
      return timer.key.startsWith("retry:")
        ? `Retrying step '${timer.key.slice("retry:".length)}' at ${until}`
        : `Sleeping until ${until}`;
    }
    case "waiting_signal": {
      if (record.waitDetail && "approval" in record.waitDetail) return waitingForApproval(record.waitDetail.approval, now);
      if (record.waitDetail && "children" in record.waitDetail) {
        const count = record.waitDetail.children.taskIds.length;
        return `Waiting for ${count === 1 ? "a child task" : `${count} child tasks`} to finish`;
      }
      const signal = record.waitDetail && "signal" in record.waitDetail ? record.waitDetail.signal : undefined;
      if (!signal) return "Waiting for a signal";
      const deadline = signal.deadline ? ` (until ${utcTime(new Date(signal.deadline), now)})` : "";
      return `Waiting for signal '${signal.name}'${deadline}`;
    }
    case "queued":
      // A stranded run's message (no online worker serves its version) says more than "queued".
      return record.statusMessage ?? record.progress?.message ?? "Queued for a worker";
    default:
      return record.progress?.message ?? "Running";
  }
}

function waitingForInput(record: DescribedRecord): string | undefined {
  const keys = Object.keys(record.pendingInputs ?? {});
  if (keys.length === 0) return undefined;
  const quoted = keys.map((key) => `'${key}'`);
  const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
  return `Waiting for an operator of ${record.tenantSlug} to answer ${list}`;
}

/** "Waiting for approval 'ship': 1 of 2 from group finance; escalates at 14:00 UTC; expires at 2026-12-04 09:00 UTC". */
function waitingForApproval(
  approval: { key: string; deadline?: string; escalatesAt?: string; approvers?: string; quorum?: number; approved?: number },
  now: Date,
): string {
  const parts = [
    approval.approvers ? `${approval.approved ?? 0} of ${approval.quorum ?? 1} from ${approval.approvers}` : "",
    approval.escalatesAt ? `escalates at ${utcTime(new Date(approval.escalatesAt), now)}` : "",
    approval.deadline ? `expires at ${utcTime(new Date(approval.deadline), now)}` : "",
  ].filter(Boolean);
  return `Waiting for approval '${approval.key}'${parts.length ? `: ${parts.join("; ")}` : ""}`;
}

/** "14:00 UTC" (seconds only when they are not :00), with the date when it is not today (UTC). */
export function utcTime(at: Date, now: Date = new Date()): string {
  if (Number.isNaN(at.getTime())) return "later";
  const iso = at.toISOString();
  const time = iso.slice(11, 19).endsWith(":00") ? iso.slice(11, 16) : iso.slice(11, 19);
  return iso.slice(0, 10) === now.toISOString().slice(0, 10) ? `${time} UTC` : `${iso.slice(0, 10)} ${time} UTC`;
}
