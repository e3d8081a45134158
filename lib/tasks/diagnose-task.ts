import type { WaitDetail } from "@runifold/sdk";
import { isTerminal, type RunStatus } from "@runifold/sdk/states";

/**
 * Why a task is where it is, in plain language — shared by the operator UI, the CLI (`tasks get`)
 * and docs/troubleshooting.md. Pure: the caller passes the record, the online workers and `now`,
 * so the same inputs always give the same words (and the browser can render it in its own zone).
 */
export type DiagnosisInput = {
  status: RunStatus;
  workflowKey: string;
  createdAt: Date | string;
  updatedAt: Date | string;
  finishedAt?: Date | string | null;
  waitDetail?: WaitDetail | null;
  leaseOwner?: string | null;
  leaseExpiresAt?: Date | string | null;
  /** Keys of unanswered input requests (falls back to waitDetail.input.keys). */
  pendingInputKeys?: string[];
  handleExpired?: boolean;
  statusMessage?: string | null;
  terminal?: {
    result?: { isError?: boolean; content?: { type: string; text?: string }[] };
    error?: { message: string };
    reason?: string;
  };
  /**
   * A failed run's stored cause (runs.failure; operators only). Review F20: without it the headline
   * was the generic error clients get ("Workflow x@1 failed") and the real cause sat further down.
   */
  failureCause?: { code: string; message: string; name?: string; step?: string } | null;
};

export type OnlineWorker = { id: string; workflows: string[] };

export type DiagnosisTone = "ok" | "info" | "warn" | "error";

export type Diagnosis = {
  /** Machine-readable cause, stable for scripts and docs. */
  code:
    | "queued_no_worker"
    | "queued"
    | "leased"
    | "lease_expired"
    | "sleeping"
    | "timer_due"
    | "waiting_signal"
    | "waiting_input"
    | "resuming"
    | "completed"
    | "completed_with_error"
    | "failed"
    | "cancelled";
  tone: DiagnosisTone;
  headline: string;
  /** Further facts worth acting on (e.g. "handle expired; run still active"). */
  notes: string[];
};

export type DiagnoseOptions = { timeZone?: string };

/** A queued run older than this with a serving worker online is worth a warning (workers are busy). */
const SLOW_QUEUE_MS = 30_000;

export function diagnoseTask(task: DiagnosisInput, workers: OnlineWorker[], now: Date, options: DiagnoseOptions = {}): Diagnosis {
  const at = (value: Date | string) => formatClock(toDate(value), now, options.timeZone);
  const ago = (value: Date | string) => formatDuration(now.getTime() - toDate(value).getTime());
  const serving = workers.filter((worker) => worker.workflows.includes(task.workflowKey));
  const noWorker = `no online worker serves ${task.workflowKey}`;
  const notes: string[] = [];
  const terminal = isTerminal(task.status);
  if (task.handleExpired) {
    notes.push(terminal ? "handle expired; MCP clients can no longer read this result" : "handle expired; run still active");
  }
  const result = (code: Diagnosis["code"], tone: DiagnosisTone, headline: string): Diagnosis => ({ code, tone, headline, notes });

  switch (task.status) {
    case "queued": {
      const waited = ago(task.updatedAt);
      // Set aside while its concurrency key is full (docs/authoring.md): no worker will claim it before a holder ends.
      if (task.waitDetail && "concurrency" in task.waitDetail) {
        const { key, limit } = task.waitDetail.concurrency;
        return result("queued", "info", `queued ${waited}: waiting for a free slot of concurrency key '${key}' (limit ${limit})`);
      }
      if (serving.length === 0) return result("queued_no_worker", "error", `queued ${waited}: ${noWorker}`);
      const slow = now.getTime() - toDate(task.updatedAt).getTime() > SLOW_QUEUE_MS;
      const count = serving.length === 1 ? "1 online worker serves" : `${serving.length} online workers serve`;
      return result(
        "queued",
        slow ? "warn" : "info",
        `queued ${waited}: ${count} ${task.workflowKey}${slow ? " but none has claimed it (all busy?)" : ""}`,
      );
    }
    case "leased": {
      const owner = task.leaseOwner ?? "unknown";
      if (!workers.some((worker) => worker.id === owner)) notes.push(`worker ${owner} is not online (no recent heartbeat)`);
      if (!task.leaseExpiresAt) return result("leased", "info", `leased by worker ${owner}`);
      const left = toDate(task.leaseExpiresAt).getTime() - now.getTime();
      if (left >= 0) return result("leased", "info", `leased by worker ${owner}, lease expires in ${formatDuration(left)}`);
      if (serving.length === 0) notes.push(noWorker);
      return result(
        "lease_expired",
        "warn",
        `leased by worker ${owner}, lease expired ${formatDuration(-left)} ago; another worker may reclaim it`,
      );
    }
    case "sleeping": {
      const timer = task.waitDetail && "timer" in task.waitDetail ? task.waitDetail.timer : undefined;
      if (serving.length === 0) notes.push(`${noWorker}: nothing will resume it when the timer fires`);
      if (!timer) return result("sleeping", "info", "sleeping on a durable timer");
      if (toDate(timer.wakeAt).getTime() > now.getTime()) return result("sleeping", "info", `sleeping until ${at(timer.wakeAt)}`);
      return result(
        "timer_due",
        serving.length === 0 ? "error" : "warn",
        `timer \`${timer.key}\` was due at ${at(timer.wakeAt)}; waiting for a worker to resume it`,
      );
    }
    case "waiting_signal": {
      if (task.waitDetail && "children" in task.waitDetail) {
        const { taskIds, since } = task.waitDetail.children;
        return result(
          "waiting_signal",
          "info",
          `waiting for child tasks ${taskIds.join(", ")} since ${at(since)} (${ago(since)})`,
        );
      }
      const signal = task.waitDetail && "signal" in task.waitDetail ? task.waitDetail.signal : undefined;
      if (!signal) return result("waiting_signal", "info", "waiting for a signal");
      if (signal.deadline) notes.push(`gives up waiting at ${at(signal.deadline)}`);
      return result(
        "waiting_signal",
        "info",
        `waiting for signal \`${signal.name}\` since ${at(signal.since)} (${ago(signal.since)})`,
      );
    }
    case "waiting_input": {
      const input = task.waitDetail && "input" in task.waitDetail ? task.waitDetail.input : undefined;
      const keys = task.pendingInputKeys ?? input?.keys ?? [];
      if (keys.length === 0) return result("resuming", "info", "all input answered; resuming");
      const since = input?.since ?? task.updatedAt;
      const names = keys.map((key) => `\`${key}\``).join(", ");
      return result("waiting_input", "warn", `waiting for input ${names} since ${at(since)} (${ago(since)})`);
    }
    case "completed": {
      const took = formatDuration(toDate(task.finishedAt ?? task.updatedAt).getTime() - toDate(task.createdAt).getTime());
      if (!task.terminal?.result?.isError) return result("completed", "ok", `completed in ${took}`);
      const text = task.terminal.result.content?.find((block) => block.type === "text")?.text;
      return result("completed_with_error", "warn", `completed with a tool error after ${took}${text ? `: ${text}` : ""}`);
    }
    case "failed": {
      const clientError = task.terminal?.error?.message ?? task.statusMessage ?? "unknown error";
      const cause = task.failureCause;
      if (!cause) return result("failed", "error", `failed: ${clientError}`);
      const where = cause.step ? ` in step \`${cause.step}\`` : "";
      if (cause.message !== clientError) notes.push(`clients see: ${clientError}`);
      return result("failed", "error", `failed (${cause.code})${where}: ${cause.name ? `${cause.name}: ` : ""}${cause.message}`);
    }
    case "cancelled":
      return result("cancelled", "info", `cancelled: ${task.terminal?.reason ?? task.statusMessage ?? "no reason given"}`);
  }
}

function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

/** "0 s", "12 s", "4 min", "2 h 5 min", "3 d 4 h": coarse on purpose, humans read these. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** "14:05" for today, "14:05:30" when the second matters (within a minute), a date otherwise. */
export function formatClock(date: Date, now: Date, timeZone?: string): string {
  const near = Math.abs(date.getTime() - now.getTime()) < 60_000;
  const sameDay = Math.abs(date.getTime() - now.getTime()) < 12 * 3_600_000;
  const time = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    ...(near ? { second: "2-digit" } : {}),
    hourCycle: "h23",
    timeZone,
  }).format(date);
  if (sameDay) return time;
  const day = new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", timeZone }).format(date);
  return `${day} ${time}`;
}
