"use client";

import { isTerminal } from "@runifold/sdk/states";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { diagnoseTask } from "@/lib/tasks/client";
import type { TaskDetail, TaskView } from "@/lib/ui/presenters/task-detail";
import { fetchJson } from "@/lib/ui/query-client";
import { ProgressBar } from "../../_components/progress-bar";
import { Card, Time } from "../../_components/ui";
import { CancelButton } from "./cancel-button";
import { ChildLinks } from "./child-links";
import { CompensationLinks } from "./compensation-links";
import { DiagnosisPanel } from "./diagnosis-panel";
import { History } from "./history";
import { PurgedTaskView } from "./purged-task-view";
import { RerunButton } from "./rerun-button";
import { RerunLinks } from "./rerun-links";
import { SignalForm } from "./signal-form";
import { StepsPanel } from "./steps-panel";
import { TaskHeading } from "./task-heading";

function Json({ value, label }: { value: unknown; label: string }) {
  // In dark the palette is mirrored (app/globals.css), so `dark:bg-slate-50` keeps the code block dark.
  return (
    <pre
      title={label}
      className="max-h-80 overflow-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed text-slate-100 dark:bg-slate-50 dark:text-slate-800"
    >
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** The stored cause of a failure: what the client's error leaves out (operators only). */
function FailureCauseFacts({ cause }: { cause: NonNullable<TaskDetail["failureCause"]> }) {
  return (
    <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm" aria-label="Failure cause">
      <dt className="text-slate-500">Cause</dt>
      <dd className="font-mono text-slate-800">{cause.code}</dd>
      {cause.step && (
        <>
          <dt className="text-slate-500">Step</dt>
          <dd className="font-mono text-slate-800">
            {cause.step}
            {cause.stepAttempt ? ` (execution ${cause.stepAttempt})` : ""}
          </dd>
        </>
      )}
      <dt className="text-slate-500">Attempt</dt>
      <dd className="text-slate-800">{cause.attempt}</dd>
      <dt className="text-slate-500">Message</dt>
      <dd className="whitespace-pre-wrap break-words text-slate-800">
        {cause.name ? `${cause.name}: ` : ""}
        {cause.message}
      </dd>
    </dl>
  );
}

export function TaskDetailView({ initial }: { initial: TaskDetail }) {
  const { data, refetch } = useQuery<TaskView>({
    queryKey: ["task", initial.id],
    queryFn: () => fetchJson<TaskView>(`/api/ui/tasks/${initial.id}`),
    initialData: initial,
    // Active tasks refresh every 2 s; finished ones only rarely (nothing changes but the handle,
    // until the retention cleaner purges them); a tombstone never changes.
    refetchInterval: (query) =>
      query.state.data?.purged ? false : query.state.data && isTerminal(query.state.data.status) ? 30_000 : 2_000,
  });
  const view = data ?? initial;
  if (view.purged) return <PurgedTaskView task={view} />;
  const task = view;
  const diagnosis = diagnoseTask(
    {
      ...task,
      pendingInputKeys: task.pendingInputs ? Object.keys(task.pendingInputs) : undefined,
      terminal: task.terminal as never,
    },
    task.workers,
    new Date(task.serverNow),
  );
  const terminal = isTerminal(task.status);
  const result = task.terminal?.result;

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <TaskHeading
          task={task}
          facts={
            <>
              {task.workflowKey}
              {task.routeRevision ? ` · route revision ${task.routeRevision}` : ""} · via {task.origin} · attempt {task.attempt}
            </>
          }
        />
        {!terminal && <CancelButton taskId={task.id} onCancelled={() => void refetch()} />}
        {terminal && <RerunButton taskId={task.id} />}
      </div>
      <RerunLinks rerunOf={task.rerunOf} rerunAs={task.rerunAs} />
      <ChildLinks parentTaskId={task.parentTaskId} childTaskIds={task.childTaskIds} />
      <CompensationLinks compensatesTaskId={task.compensatesTaskId} compensationTaskIds={task.compensationTaskIds} />
      <DiagnosisPanel diagnosis={diagnosis} />
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Progress">
          {task.progress ? (
            <ProgressBar progress={task.progress} />
          ) : (
            <p className="text-sm text-slate-500">No progress reported.</p>
          )}
          <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-slate-500">Created</dt>
            <dd>
              <Time iso={task.createdAt} />
            </dd>
            <dt className="text-slate-500">Updated</dt>
            <dd>
              <Time iso={task.updatedAt} />
            </dd>
            <dt className="text-slate-500">Finished</dt>
            <dd>
              <Time iso={task.finishedAt} />
            </dd>
            <dt className="text-slate-500">Handle</dt>
            <dd>
              {task.handleExpired
                ? "expired (clients get “not found”)"
                : task.ttlMs
                  ? `valid for ${Math.round(task.ttlMs / 60_000)} min from creation`
                  : "no expiry"}
            </dd>
          </dl>
        </Card>
        <Card title="Input">
          <Json value={task.input} label="Task input" />
        </Card>
        {task.pendingInputs && (
          <Card title="Waiting for input" className="lg:col-span-2">
            <p className="text-sm text-slate-700">
              {Object.keys(task.pendingInputs).length} request(s) outstanding.{" "}
              <Link href="/inbox" className="text-indigo-700 underline">
                Answer in the inbox →
              </Link>
            </p>
          </Card>
        )}
        {!terminal && (
          <SignalForm
            taskId={task.id}
            waitingFor={task.waitDetail && "signal" in task.waitDetail ? task.waitDetail.signal.name : undefined}
          />
        )}
        {terminal && (
          <Card title={task.terminal?.error ? "Error" : "Result"} className="lg:col-span-2">
            {task.terminal?.error ? (
              <>
                <p className="text-sm text-red-800">
                  {task.terminal.error.message} <span className="text-slate-500">(code {task.terminal.error.code})</span>
                </p>
                {task.failureCause && <FailureCauseFacts cause={task.failureCause} />}
              </>
            ) : result ? (
              <Json value={result} label="Task result" />
            ) : (
              <p className="text-sm text-slate-700">{task.terminal?.reason ?? task.statusMessage ?? "No result."}</p>
            )}
          </Card>
        )}
      </div>
      <StepsPanel taskId={task.id} steps={task.steps} truncated={task.stepsTruncated} />
      <History taskId={task.id} newest={task.events} olderThan={task.olderThan} />
    </div>
  );
}
