"use client";

import { useActionState } from "react";
import { buttonClass, Card, inputClass } from "../../_components/ui";
import { signalTaskForm } from "../../actions";

/**
 * Send a named signal to a live task (review F25; docs/console.md "Send a signal"): the same rules as
 * `POST /api/v1/tasks/{id}/signals/{name}` and `runifold tasks signal`. It posts to a server action,
 * so it works before the page's scripts load. The name is filled in when the task waits for one.
 */
export function SignalForm({ taskId, waitingFor }: { taskId: string; waitingFor?: string }) {
  const [result, send, pending] = useActionState(signalTaskForm, null);
  return (
    <Card title="Send a signal" className="lg:col-span-2">
      <form action={send} className="flex flex-col gap-2" aria-label="Send a signal">
        <input type="hidden" name="taskId" value={taskId} />
        <label className="text-sm text-slate-700">
          Name
          <input
            name="name"
            required
            maxLength={128}
            pattern="[A-Za-z0-9_.:\-]{1,128}"
            defaultValue={waitingFor ?? ""}
            className={`${inputClass} mt-1 font-mono`}
          />
        </label>
        <label className="text-sm text-slate-700">
          Payload (JSON, optional)
          <textarea name="payload" rows={3} placeholder='{"approved": true}' className={`${inputClass} mt-1 font-mono`} />
        </label>
        <div>
          <button type="submit" className={buttonClass} disabled={pending}>
            {pending ? "Sending…" : "Send signal"}
          </button>
        </div>
        {result?.ok && (
          <p role="status" className="text-sm text-emerald-700">
            Signal “{result.data.name}” sent.
          </p>
        )}
        {result && !result.ok && (
          <p role="alert" className="text-sm text-red-700">
            {result.error}
          </p>
        )}
      </form>
    </Card>
  );
}
