"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { secondaryButtonClass } from "../../_components/ui";
import { rerunTask } from "../../actions";

/**
 * Rerun a finished task with the same input: ask, then confirm (a stray click must not start work),
 * then open the new task's page. A refusal (the task is gone, or not finished after all) is shown.
 */
export function RerunButton({ taskId }: { taskId: string }) {
  const router = useRouter();
  const queries = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  if (!confirming) {
    return (
      <button type="button" className={secondaryButtonClass} onClick={() => setConfirming(true)}>
        Rerun
      </button>
    );
  }
  return (
    <fieldset aria-label="Confirm rerun" className="flex flex-wrap items-center gap-2">
      <span className="text-sm text-slate-700">Start a new task with the same input?</span>
      <button
        type="button"
        className={secondaryButtonClass}
        disabled={pending}
        onClick={() =>
          start(async () => {
            const result = await rerunTask({ taskId });
            if (result.ok) {
              // The original's cached page would otherwise lack its new "rerun as" link until its next refresh.
              void queries.invalidateQueries({ queryKey: ["task", taskId] });
              router.push(`/tasks/${result.data.rerunId}`);
            } else {
              setConfirming(false);
              setError(result.error);
            }
          })
        }
      >
        {pending ? "Starting…" : "Yes, rerun"}
      </button>
      <button type="button" className="text-sm text-slate-600 hover:underline" onClick={() => setConfirming(false)}>
        Never mind
      </button>
      {error && (
        <p role="alert" className="w-full text-sm text-red-700">
          {error}
        </p>
      )}
    </fieldset>
  );
}
