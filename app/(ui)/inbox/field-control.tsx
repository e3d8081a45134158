"use client";

import { VALUE_PREFIX } from "@/lib/ui/form-inputs";
import type { FormField, RawValue } from "@/lib/ui/schema-form";
import { inputClass } from "../_components/ui";

const INPUT_TYPE: Record<string, string> = { email: "email", uri: "url", date: "date" };

function hint(field: FormField): string | undefined {
  const parts: string[] = [];
  if (field.description) parts.push(field.description);
  if (field.kind === "string") {
    if (field.minLength !== undefined && field.maxLength !== undefined)
      parts.push(`${field.minLength}–${field.maxLength} characters`);
    else if (field.maxLength !== undefined) parts.push(`up to ${field.maxLength} characters`);
    else if (field.minLength !== undefined) parts.push(`at least ${field.minLength} characters`);
    if (field.format === "date-time") parts.push("e.g. 2026-05-01T14:05:00Z");
  }
  if (field.kind === "number") {
    if (field.minimum !== undefined) parts.push(`min ${field.minimum}`);
    if (field.maximum !== undefined) parts.push(`max ${field.maximum}`);
    if (field.integer) parts.push("whole number");
  }
  return parts.length ? parts.join(" · ") : undefined;
}

/**
 * One accessible control per schema property: label, hint and error are tied to it by id. Each is
 * named `v.<key>` (lib/ui/form-inputs.ts) so that the form posts its values before scripts load.
 */
export function FieldControl({
  id,
  field,
  value,
  error,
  onChange,
}: {
  id: string;
  field: FormField;
  value: RawValue;
  error?: string;
  onChange: (value: RawValue) => void;
}) {
  const hintText = hint(field);
  const name = `${VALUE_PREFIX}${field.key}`;
  const describedBy = [hintText ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const label = (
    <>
      {field.label}
      {field.required && (
        <span className="text-red-600" aria-hidden>
          {" "}
          *
        </span>
      )}
    </>
  );
  const footer = (
    <>
      {hintText && (
        <span id={`${id}-hint`} className="text-xs text-slate-500">
          {hintText}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="text-xs font-medium text-red-700">
          {error}
        </span>
      )}
    </>
  );
  const common = {
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
    "aria-required": field.required || undefined,
  };

  if (field.kind === "boolean") {
    return (
      <div className="flex flex-col gap-1">
        <label htmlFor={id} className="flex items-center gap-2 text-sm font-medium text-slate-700">
          <input
            id={id}
            type="checkbox"
            name={name}
            value="true"
            className="size-4 rounded border-slate-300 text-indigo-600"
            checked={value === true}
            onChange={(e) => onChange(e.target.checked)}
            {...common}
          />
          {label}
        </label>
        {footer}
      </div>
    );
  }
  if (field.kind === "multi") {
    const picked = Array.isArray(value) ? value : [];
    return (
      <fieldset className="flex flex-col gap-1" aria-describedby={describedBy} aria-invalid={error ? true : undefined}>
        <legend className="text-sm font-medium text-slate-700">{label}</legend>
        <input type="hidden" name="multi" value={field.key} />
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {field.options.map((option) => (
            <label key={option.value} className="flex items-center gap-2 text-sm text-slate-700">
              <input
                type="checkbox"
                name={name}
                value={option.value}
                className="size-4 rounded border-slate-300 text-indigo-600"
                checked={picked.includes(option.value)}
                onChange={(e) =>
                  onChange(e.target.checked ? [...picked, option.value] : picked.filter((v) => v !== option.value))
                }
              />
              {option.label}
            </label>
          ))}
        </div>
        {footer}
      </fieldset>
    );
  }
  const text = typeof value === "string" ? value : "";
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium text-slate-700">
        {label}
      </label>
      {field.kind === "enum" ? (
        <select id={id} name={name} className={inputClass} value={text} onChange={(e) => onChange(e.target.value)} {...common}>
          {!field.required || !text ? <option value="">Choose…</option> : null}
          {field.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : field.kind === "number" ? (
        <input
          id={id}
          name={name}
          type="number"
          inputMode={field.integer ? "numeric" : "decimal"}
          step={field.integer ? 1 : "any"}
          min={field.minimum}
          max={field.maximum}
          className={inputClass}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          {...common}
        />
      ) : field.maxLength !== undefined && field.maxLength > 200 ? (
        <textarea
          id={id}
          name={name}
          rows={3}
          className={inputClass}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          {...common}
        />
      ) : (
        <input
          id={id}
          name={name}
          type={INPUT_TYPE[field.format ?? ""] ?? "text"}
          className={inputClass}
          value={text}
          onChange={(e) => onChange(e.target.value)}
          {...common}
        />
      )}
      {footer}
    </div>
  );
}
