"use client";

import { type FormEvent, startTransition, useActionState, useId, useState } from "react";
import { type FormField, initialValues, type RawValue, validateForm } from "@/lib/ui/schema-form";
import { buttonClass, secondaryButtonClass } from "../_components/ui";
import { answerInputForm } from "../actions";
import { FieldControl } from "./field-control";

/**
 * A form rendered from the request's schema; validated here for feedback and again on the server.
 * It posts to a server action (answerInputForm), so an answer given before the page's scripts load
 * is sent too, and the page comes back with the server's verdict.
 */
export function InputForm({
  taskId,
  inputKey,
  message,
  fields,
}: {
  taskId: string;
  inputKey: string;
  message: string;
  fields: FormField[];
}) {
  const formId = useId();
  const [result, send, pending] = useActionState(answerInputForm, null);
  const [values, setValues] = useState<Record<string, RawValue>>(() => initialValues(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const status = statusOf(result);
  const serverErrors = result?.ok && !result.data.ok ? result.data.errors : {};

  const update = (key: string, value: RawValue) => {
    const next = { ...values, [key]: value };
    setValues(next);
    setTouched((t) => ({ ...t, [key]: true }));
    setErrors(validateForm(fields, next).errors);
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const data = new FormData(event.currentTarget, submitter);
    if (data.get("action") !== "decline") {
      const checked = validateForm(fields, values);
      setErrors(checked.errors);
      setTouched(Object.fromEntries(fields.map((f) => [f.key, true])));
      if (Object.keys(checked.errors).length > 0) return;
    }
    startTransition(() => send(data));
  };

  if (status?.tone === "ok") {
    return (
      <p role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800">
        {status.text}
      </p>
    );
  }

  return (
    <form action={send} onSubmit={onSubmit} noValidate aria-describedby={`${formId}-message`} className="flex flex-col gap-3">
      <input type="hidden" name="taskId" value={taskId} />
      <input type="hidden" name="key" value={inputKey} />
      <p id={`${formId}-message`} className="text-sm text-slate-800">
        {message}
      </p>
      {fields.map((field) => (
        <FieldControl
          key={field.key}
          id={`${formId}-${field.key}`}
          field={field}
          value={values[field.key]}
          error={serverErrors[field.key] ?? (touched[field.key] ? errors[field.key] : undefined)}
          onChange={(value) => update(field.key, value)}
        />
      ))}
      {fields.some((f) => f.required) && (
        <p className="text-xs text-slate-500">
          <span aria-hidden>*</span> required
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <button type="submit" name="action" value="accept" className={buttonClass} disabled={pending}>
          {pending ? "Sending…" : "Submit"}
        </button>
        <button type="submit" name="action" value="decline" formNoValidate className={secondaryButtonClass} disabled={pending}>
          Decline
        </button>
      </div>
      {status && (
        <p
          role={status.tone === "error" ? "alert" : "status"}
          className={`text-sm ${status.tone === "error" ? "text-red-700" : "text-emerald-700"}`}
        >
          {status.text}
        </p>
      )}
    </form>
  );
}

type Answer = Awaited<ReturnType<typeof answerInputForm>>;

/** What the last answer's result says to the person (null before any). */
function statusOf(result: Answer | null): { tone: "ok" | "error"; text: string } | null {
  if (!result) return null;
  if (!result.ok) return { tone: "error", text: result.error };
  if (!result.data.ok) return { tone: "error", text: "The server did not accept these values." };
  return { tone: "ok", text: result.data.action === "accept" ? "Answer sent; the task resumes." : "Declined; the task resumes." };
}
