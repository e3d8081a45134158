"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { rerunTaskForm } from "../../actions";
import { ConfirmDisclosure } from "./confirm-disclosure";

/**
 * Rerun a finished task with the same input: ask, then confirm (a stray click must not start work),
 * then open the new task's page (before scripts load: a link to it). A refusal (the task is gone,
 * or not finished after all) is shown.
 */
export function RerunButton({ taskId }: { taskId: string }) {
  const router = useRouter();
  const queries = useQueryClient();
  return (
    <ConfirmDisclosure
      taskId={taskId}
      action={rerunTaskForm}
      label="Confirm rerun"
      ask="Rerun"
      back="Never mind"
      question="Start a new task with the same input?"
      confirm="Yes, rerun"
      working="Starting…"
      onSuccess={({ rerunId }) => {
        // The original's cached page would otherwise lack its new "rerun as" link until its next refresh.
        void queries.invalidateQueries({ queryKey: ["task", taskId] });
        router.push(`/tasks/${rerunId}`);
      }}
      done={({ rerunId }) => (
        <p role="status" className="text-sm text-slate-700">
          Rerun started:{" "}
          <Link href={`/tasks/${rerunId}`} className="font-mono text-indigo-700 hover:underline">
            open {rerunId.slice(0, 8)}
          </Link>
        </p>
      )}
    />
  );
}
