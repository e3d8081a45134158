"use client";

import { useState } from "react";
import type { RouteItem } from "@/lib/ui/presenters/routes";
import { scheduleInputFields, scheduleInputValues } from "@/lib/ui/schedule-input";
import type { RawValue } from "@/lib/ui/schema-form";
import { inputClass } from "../_components/ui";
import { FieldControl } from "../inbox/field-control";

/**
 * The input each scheduled run starts with (lib/ui/schedule-input.ts): a control per property of a
 * flat input schema, posted as `v.<key>` with the `inputFields` marker, else a JSON box posted as
 * `scheduleInput`. Prefilled with the schedule's current input; the server types and checks it.
 */
export function ScheduleInputFields({ route, idPrefix }: { route: RouteItem; idPrefix: string }) {
  const fields = scheduleInputFields(route.inputSchema);
  const [values, setValues] = useState<Record<string, RawValue>>(() =>
    fields ? scheduleInputValues(fields, route.schedule?.input) : {},
  );
  if (!fields) {
    return (
      <label className="flex basis-full flex-col gap-1 text-xs font-medium text-slate-600">
        Input of each run (JSON, checked against the tool's input schema)
        <textarea
          name="scheduleInput"
          rows={4}
          defaultValue={JSON.stringify(route.schedule?.input ?? {}, null, 2)}
          className={`${inputClass} font-mono`}
          spellCheck={false}
        />
      </label>
    );
  }
  return (
    <fieldset className="flex basis-full flex-col gap-2 rounded-md border border-slate-200 p-3">
      <legend className="px-1 text-xs font-medium text-slate-600">Input of each run</legend>
      <input type="hidden" name="inputFields" value="1" />
      {fields.map((field) => (
        <FieldControl
          key={field.key}
          id={`${idPrefix}-input-${field.key}`}
          field={field}
          value={values[field.key]}
          onChange={(value) => setValues((current) => ({ ...current, [field.key]: value }))}
        />
      ))}
    </fieldset>
  );
}
