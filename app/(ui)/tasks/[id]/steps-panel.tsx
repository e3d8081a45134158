"use client";

import { useState } from "react";
import type { TaskStepItem } from "@/lib/ui/presenters/task-steps";
import { fetchJson } from "@/lib/ui/query-client";
import { Card, Time } from "../../_components/ui";

const STATUS_TONE: Record<TaskStepItem["status"], string> = {
  completed: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  retrying: "bg-amber-50 text-amber-800 ring-amber-600/20",
  failed: "bg-red-50 text-red-800 ring-red-600/20",
};

const formatBytes = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);

/** A step's output: the preview the page polls, and on request the whole of it (fetched once). */
function StepOutput({ taskId, step }: { taskId: string; step: TaskStepItem }) {
  const [full, setFull] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  if (!step.output) return null;
  const showAll = async () => {
    setLoading(true);
    setError(null);
    try {
      const query = new URLSearchParams({ step: step.key });
      setFull((await fetchJson<{ output: string }>(`/api/ui/tasks/${taskId}?${query}`)).output);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setLoading(false);
    }
  };
  return (
    <div className="mt-2">
      <pre
        data-testid="step-output"
        className="max-h-96 overflow-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed text-slate-100 dark:bg-slate-50 dark:text-slate-800"
      >
        {full ?? step.output.preview}
        {!full && step.output.truncated ? "\n…" : ""}
      </pre>
      {step.output.truncated && !full && (
        <button type="button" className="mt-1 text-xs text-indigo-700 hover:underline" onClick={showAll} disabled={loading}>
          {loading ? "Loading…" : `Show all (${formatBytes(step.output.bytes)})`}
        </button>
      )}
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * The run's durable operations in call order: each step's status, executions (failed ones
 * included), when it was recorded, its output (memoized in run_steps) and the last error of a step
 * that is retrying or failed.
 */
export function StepsPanel({ taskId, steps, truncated }: { taskId: string; steps: TaskStepItem[]; truncated: boolean }) {
  return (
    <Card title="Steps">
      {steps.length === 0 ? (
        <p className="text-sm text-slate-500">No steps recorded yet.</p>
      ) : (
        <ol className="flex flex-col divide-y divide-slate-100" aria-label="Steps in call order">
          {steps.map((step) => (
            <li key={step.key} className="py-2 first:pt-0" data-step-key={step.key}>
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
                <span className="font-mono font-medium text-slate-900">{step.key}</span>
                {step.kind !== "step" && <span className="text-xs text-slate-500">{step.kind}</span>}
                <span
                  className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${STATUS_TONE[step.status]}`}
                >
                  {step.status}
                </span>
                {step.attempts !== null && (
                  <span className="text-xs text-slate-500">
                    {step.attempts} execution{step.attempts === 1 ? "" : "s"}
                  </span>
                )}
                {step.at && (
                  <span className="text-xs text-slate-500">
                    <Time iso={step.at} />
                  </span>
                )}
                {step.retryAt && (
                  <span className="text-xs text-amber-700">
                    next try <Time iso={step.retryAt} />
                  </span>
                )}
              </div>
              {step.lastError && (
                <p className="mt-1 whitespace-pre-wrap break-words text-sm text-red-800">
                  {step.lastError.name ? `${step.lastError.name}: ` : ""}
                  {step.lastError.message}
                </p>
              )}
              <StepOutput taskId={taskId} step={step} />
            </li>
          ))}
        </ol>
      )}
      {truncated && <p className="mt-2 text-xs text-slate-500">Only the first {steps.length} durable operations are listed.</p>}
    </Card>
  );
}
