"use client";

import { type ReactNode, useActionState, useEffect, useRef } from "react";
import type { FormAction, FormResult } from "../../_components/action-form";
import { dangerButtonClass, secondaryButtonClass } from "../../_components/ui";

/**
 * A task action asked for twice, so a stray click or Enter cannot start or stop work: the summary
 * asks ("Cancel task"), the POST form it opens confirms ("Yes, cancel"); the summary again closes it
 * ("Keep running"). The disclosure is the browser's own <details>, so both steps work before the
 * page's scripts load, and the action's answer (an error, what `done` shows) renders from its state
 * either way.
 */
export function ConfirmDisclosure<T>({
  taskId,
  action,
  label,
  ask,
  back,
  question,
  confirm,
  working,
  danger = false,
  onSuccess,
  done,
}: {
  taskId: string;
  action: FormAction<T>;
  /** The confirming form's accessible name. */
  label: string;
  ask: string;
  back: string;
  question: string;
  confirm: string;
  working: string;
  danger?: boolean;
  /** Once scripts run: what follows a success (refresh the task, open the new one). */
  onSuccess?: (data: T) => void;
  /** What a success shows, before scripts load too. */
  done?: (data: T) => ReactNode;
}) {
  const [result, dispatch, pending] = useActionState(action, null);
  const handled = useRef<FormResult<T> | null>(null);
  useEffect(() => {
    if (!result?.ok || handled.current === result) return;
    handled.current = result;
    onSuccess?.(result.data);
  }, [result, onSuccess]);
  const button = danger ? dangerButtonClass : secondaryButtonClass;
  return (
    <div className="flex flex-col items-end gap-2">
      <details className="group text-right">
        {/* list-none and the webkit marker: a button's look, without the disclosure triangle; text-right puts it at the row's end. */}
        <summary
          className={`${button} cursor-pointer list-none group-open:border-slate-300 group-open:text-slate-700 [&::-webkit-details-marker]:hidden`}
        >
          <span className="group-open:hidden">{ask}</span>
          <span className="hidden group-open:inline">{back}</span>
        </summary>
        <form action={dispatch} aria-label={label} className="mt-2 flex flex-wrap items-center justify-end gap-2">
          <input type="hidden" name="taskId" value={taskId} />
          <span className="text-sm text-slate-700">{question}</span>
          <button type="submit" className={button} disabled={pending}>
            {pending ? working : confirm}
          </button>
        </form>
      </details>
      {result?.ok && done?.(result.data)}
      {result && !result.ok && (
        <p role="alert" className="text-sm text-red-700">
          {result.error}
        </p>
      )}
    </div>
  );
}
