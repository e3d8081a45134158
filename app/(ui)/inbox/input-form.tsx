"use client";

import { type FormEvent, useId, useState, useTransition } from "react";
import { type FormField, initialValues, type RawValue, validateForm } from "@/lib/ui/schema-form";
import { buttonClass, secondaryButtonClass } from "../_components/ui";
import { answerInput } from "../actions";
import { FieldControl } from "./field-control";

/** A form rendered from the request's schema; validated here for feedback and again on the server. */
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
  const [values, setValues] = useState<Record<string, RawValue>>(() => initialValues(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [status, setStatus] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const [pending, start] = useTransition();

  const update = (key: string, value: RawValue) => {
    const next = { ...values, [key]: value };
    setValues(next);
    setTouched((t) => ({ ...t, [key]: true }));
    setErrors(validateForm(fields, next).errors);
  };

  const submit = (action: "accept" | "decline") =>
    start(async () => {
      setStatus(null);
      if (action === "accept") {
        const checked = validateForm(fields, values);
        setErrors(checked.errors);
        setTouched(Object.fromEntries(fields.map((f) => [f.key, true])));
        if (Object.keys(checked.errors).length > 0) return;
      }
      const result = await answerInput({ taskId, key: inputKey, action, values: values as Record<string, unknown> });
      if (!result.ok) return setStatus({ tone: "error", text: result.error });
      if (!result.data.ok) {
        setErrors(result.data.errors);
        return setStatus({ tone: "error", text: "The server did not accept these values." });
      }
      setStatus({ tone: "ok", text: action === "accept" ? "Answer sent; the task resumes." : "Declined; the task resumes." });
    });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit("accept");
  };

  if (status?.tone === "ok") {
    return (
      <p role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800">
        {status.text}
      </p>
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-describedby={`${formId}-message`} className="flex flex-col gap-3">
      <p id={`${formId}-message`} className="text-sm text-slate-800">
        {message}
      </p>
      {fields.map((field) => (
        <FieldControl
          key={field.key}
          id={`${formId}-${field.key}`}
          field={field}
          value={values[field.key]}
          error={touched[field.key] ? errors[field.key] : undefined}
          onChange={(value) => update(field.key, value)}
        />
      ))}
      {fields.some((f) => f.required) && (
        <p className="text-xs text-slate-500">
          <span aria-hidden>*</span> required
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className={buttonClass} disabled={pending}>
          {pending ? "Sending…" : "Submit"}
        </button>
        <button type="button" className={secondaryButtonClass} disabled={pending} onClick={() => submit("decline")}>
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
