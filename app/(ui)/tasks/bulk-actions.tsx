"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState, useTransition } from "react";
import type { BulkTaskResult } from "@/lib/admin";
import { buttonClass, dangerButtonClass, secondaryButtonClass } from "../_components/ui";
import { bulkTasks } from "../actions";

/** The server's cap per action (lib/admin BULK_TASK_LIMIT), checked here too so the button says so first. */
const LIMIT = 100;

type Action = "cancel" | "rerun";

const COPY: Record<Action, { title: (n: number) => string; body: string; confirm: (n: number) => string }> = {
  cancel: {
    title: (n) => `Cancel ${n} task${n === 1 ? "" : "s"}?`,
    body: "Each selected task that is still running is asked to stop. Finished tasks are left as they are.",
    confirm: (n) => `Cancel ${n} task${n === 1 ? "" : "s"}`,
  },
  rerun: {
    title: (n) => `Rerun ${n} task${n === 1 ? "" : "s"}?`,
    body: "Each selected finished task starts again as a new task with the same input. Tasks still running are skipped.",
    confirm: (n) => `Rerun ${n} task${n === 1 ? "" : "s"}`,
  },
};

const short = (id: string) => id.slice(0, 8);

function Outcome({ result }: { result: BulkTaskResult }) {
  switch (result.outcome) {
    case "cancelled":
      return <>cancelled</>;
    case "already_finished":
      return <>already finished</>;
    case "not_found":
      return <>not found</>;
    case "not_finished":
      return <>still {result.status}: not rerun</>;
    case "tenant_disabled":
      return <>tenant disabled: not rerun</>;
    case "rerun":
      return (
        <>
          rerun as{" "}
          <Link href={`/tasks/${result.rerunId}`} className="font-mono text-indigo-700 hover:underline" title={result.rerunId}>
            {short(result.rerunId)}
          </Link>
        </>
      );
  }
}

/**
 * "Cancel selected" / "Rerun selected": a modal confirmation naming the count, then one line per
 * task with what happened to it (the server answers per ID; a task another operator finished in the
 * meantime simply says so).
 */
export function BulkActions({ selected, onDone }: { selected: string[]; onDone: () => void }) {
  const queries = useQueryClient();
  const dialog = useRef<HTMLDialogElement>(null);
  const [action, setAction] = useState<Action | null>(null);
  const [results, setResults] = useState<{ action: Action; items: BulkTaskResult[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  const count = selected.length;
  const tooMany = count > LIMIT;

  useEffect(() => {
    if (action) dialog.current?.showModal();
    else dialog.current?.close();
  }, [action]);

  const run = (chosen: Action) =>
    start(async () => {
      setError(null);
      const result = await bulkTasks({ action: chosen, taskIds: selected });
      setAction(null);
      if (result.ok) {
        setResults({ action: chosen, items: result.data });
        onDone();
        // Show the new statuses now rather than at the next poll, here and on the tasks' own pages.
        void queries.invalidateQueries({ queryKey: ["tasks"] });
        for (const item of result.data) void queries.invalidateQueries({ queryKey: ["task", item.taskId] });
      } else setError(result.error);
    });

  return (
    <div className="mb-3 flex flex-col gap-2">
      {count > 0 && (
        <section
          aria-label="Bulk actions"
          className="flex flex-wrap items-center gap-2 rounded-md bg-indigo-50 px-3 py-2 text-sm"
        >
          <span className="font-medium text-indigo-900" data-testid="selected-count">
            {count} selected
          </span>
          <button type="button" className={dangerButtonClass} disabled={tooMany} onClick={() => setAction("cancel")}>
            Cancel selected
          </button>
          <button type="button" className={secondaryButtonClass} disabled={tooMany} onClick={() => setAction("rerun")}>
            Rerun selected
          </button>
          <button type="button" className="text-sm text-slate-600 hover:underline" onClick={onDone}>
            Clear selection
          </button>
          {tooMany && <span className="text-red-700">At most {LIMIT} tasks per action.</span>}
        </section>
      )}
      <dialog
        ref={dialog}
        aria-labelledby="bulk-dialog-title"
        onClose={() => setAction(null)}
        className="m-auto w-full max-w-md rounded-lg p-5 shadow-xl backdrop:bg-slate-900/40"
      >
        {action && (
          <>
            <h2 id="bulk-dialog-title" className="text-lg font-semibold text-slate-900">
              {COPY[action].title(count)}
            </h2>
            <p className="mt-2 text-sm text-slate-700">{COPY[action].body}</p>
            <div className="mt-4 flex justify-end gap-2">
              <button type="button" className={secondaryButtonClass} onClick={() => setAction(null)} disabled={pending}>
                Back
              </button>
              <button
                type="button"
                className={action === "cancel" ? dangerButtonClass : buttonClass}
                disabled={pending}
                onClick={() => run(action)}
              >
                {pending ? "Working…" : COPY[action].confirm(count)}
              </button>
            </div>
          </>
        )}
      </dialog>
      {error && (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      )}
      {results && (
        <section aria-label="Bulk action results" className="rounded-md border border-slate-200 bg-white px-3 py-2 text-sm">
          <div className="flex items-center justify-between">
            <h2 className="font-medium text-slate-800">
              {results.action === "cancel" ? "Cancel" : "Rerun"}: {results.items.length} task
              {results.items.length === 1 ? "" : "s"}
            </h2>
            <button type="button" className="text-xs text-slate-600 hover:underline" onClick={() => setResults(null)}>
              Dismiss
            </button>
          </div>
          <ul className="mt-1 flex flex-col gap-0.5">
            {results.items.map((item) => (
              <li key={item.taskId} data-result-task={item.taskId}>
                <Link href={`/tasks/${item.taskId}`} className="font-mono text-indigo-700 hover:underline" title={item.taskId}>
                  {short(item.taskId)}
                </Link>
                : <Outcome result={item} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
