"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, type ReactNode, startTransition, useActionState, useEffect, useRef, useState } from "react";

export type FormResult<T> = { ok: true; data: T } | { ok: false; error: string };

/** A server action bound to a form (app/(ui)/actions.ts formAction): FormData in, the action's result out. */
export type FormAction<T> = (previous: FormResult<T> | null, form: FormData) => Promise<FormResult<T>>;

/**
 * A form posting its fields to a server action, showing the action's error inline and, on success,
 * what `shown` renders from the result (a token shown once, a confirmation).
 *
 * It works before the page's scripts run: the form's action is the server action itself, so React
 * renders it as a POST that Next answers by running the action and rendering the page with its
 * result (useActionState). Once hydrated, submitting goes through the same action without a reload;
 * the form is reset only after a success, so a refused submission keeps what was typed.
 *
 * `confirm` asks first (window.confirm) once scripts run; a post made before they load goes
 * straight through, as a plain form would (nothing can ask without scripts).
 */
export function ActionForm<T>({
  action,
  children,
  className = "",
  label,
  shown,
  onSuccess,
  confirm,
}: {
  action: FormAction<T>;
  children: ReactNode;
  className?: string;
  label: string;
  /** What a successful result shows above the form until `dismiss` is called. */
  shown?: (data: T, dismiss: () => void) => ReactNode;
  onSuccess?: (data: T) => void;
  /** The question asked before posting, when the action is hard to undo. */
  confirm?: string;
}) {
  const router = useRouter();
  const form = useRef<HTMLFormElement>(null);
  const [state, dispatch, pending] = useActionState(action, null);
  const [dismissed, setDismissed] = useState<FormResult<T> | null>(null);
  const handled = useRef<FormResult<T> | null>(null);

  useEffect(() => {
    if (!state?.ok || handled.current === state) return;
    handled.current = state;
    form.current?.reset();
    onSuccess?.(state.data);
    router.refresh();
  }, [state, onSuccess, router]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (confirm && !window.confirm(confirm)) return;
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const data = new FormData(event.currentTarget, submitter);
    startTransition(() => dispatch(data));
  };

  return (
    <>
      {state?.ok && state !== dismissed && shown?.(state.data, () => setDismissed(state))}
      <form ref={form} action={dispatch} onSubmit={onSubmit} aria-label={label} aria-busy={pending} className={className}>
        <fieldset disabled={pending} className="contents">
          {children}
        </fieldset>
        {state && !state.ok && (
          <p role="alert" className="basis-full text-sm text-red-700">
            {state.error}
          </p>
        )}
      </form>
    </>
  );
}
