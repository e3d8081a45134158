import type { RunStatus } from "@runifold/sdk";

/** How run statuses read in the UI (and the list's status filter options). Safe for client code. */
export const STATUS_LABEL: Record<RunStatus, string> = {
  queued: "queued",
  leased: "running",
  sleeping: "waiting on timer",
  waiting_signal: "waiting on signal",
  waiting_input: "waiting on input",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
};

export const STATUS_FILTERS = {
  active: { label: "Any active", statuses: ["queued", "leased", "sleeping", "waiting_signal", "waiting_input"] },
  queued: { label: "Queued", statuses: ["queued"] },
  running: { label: "Running (leased)", statuses: ["leased"] },
  waiting: { label: "Waiting (timer, signal or input)", statuses: ["sleeping", "waiting_signal", "waiting_input"] },
  waiting_timer: { label: "Waiting on timer", statuses: ["sleeping"] },
  waiting_signal: { label: "Waiting on signal", statuses: ["waiting_signal"] },
  waiting_input: { label: "Waiting on input", statuses: ["waiting_input"] },
  completed: { label: "Completed", statuses: ["completed"] },
  failed: { label: "Failed", statuses: ["failed"] },
  cancelled: { label: "Cancelled", statuses: ["cancelled"] },
} as const satisfies Record<string, { label: string; statuses: RunStatus[] }>;

export type StatusFilter = keyof typeof STATUS_FILTERS;

export function isStatusFilter(value: string): value is StatusFilter {
  return Object.hasOwn(STATUS_FILTERS, value);
}

/** Tailwind classes of a status badge. */
export function statusTone(status: RunStatus): string {
  switch (status) {
    case "completed":
      return "bg-emerald-50 text-emerald-800 ring-emerald-600/20";
    case "failed":
      return "bg-red-50 text-red-800 ring-red-600/20";
    case "cancelled":
      return "bg-slate-100 text-slate-700 ring-slate-500/20";
    case "waiting_input":
      return "bg-amber-50 text-amber-800 ring-amber-600/20";
    case "queued":
      return "bg-sky-50 text-sky-800 ring-sky-600/20";
    default:
      return "bg-indigo-50 text-indigo-800 ring-indigo-600/20";
  }
}
