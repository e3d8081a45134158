"use client";

import { STATUS_FILTERS } from "@/lib/ui/presenters/status-labels";
import { inputClass } from "../_components/ui";

export type FilterOptions = { tenants: { id: string; slug: string }[]; tools: string[] };

const FIELDS = "flex flex-col gap-1 text-xs font-medium text-slate-600";

/** The list's filters; every change goes to the URL (so a reload or a shared link keeps them). */
export function TaskFilters({
  options,
  values,
  onChange,
  inputError,
}: {
  options: FilterOptions;
  values: URLSearchParams;
  onChange: (key: string, value: string) => void;
  /** Why the server refused the input filter, shown under its box. */
  inputError?: string;
}) {
  const value = (key: string) => values.get(key) ?? "";
  return (
    <search aria-label="Filter tasks">
      <form className="mb-4 grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-6" onSubmit={(e) => e.preventDefault()}>
        <label className={FIELDS}>
          Tenant
          <select className={inputClass} value={value("tenant")} onChange={(e) => onChange("tenant", e.target.value)}>
            <option value="">All tenants</option>
            {options.tenants.map((t) => (
              <option key={t.id} value={t.id}>
                {t.slug}
              </option>
            ))}
          </select>
        </label>
        <label className={FIELDS}>
          Route (tool)
          <select className={inputClass} value={value("tool")} onChange={(e) => onChange("tool", e.target.value)}>
            <option value="">All routes</option>
            {options.tools.map((tool) => (
              <option key={tool} value={tool}>
                {tool}
              </option>
            ))}
          </select>
        </label>
        <label className={FIELDS}>
          Status
          <select className={inputClass} value={value("status")} onChange={(e) => onChange("status", e.target.value)}>
            <option value="">Any status</option>
            {Object.entries(STATUS_FILTERS).map(([key, filter]) => (
              <option key={key} value={key}>
                {filter.label}
              </option>
            ))}
          </select>
        </label>
        <label className={FIELDS}>
          Created from
          <input
            type="datetime-local"
            className={inputClass}
            value={value("from")}
            onChange={(e) => onChange("from", e.target.value)}
          />
        </label>
        <label className={FIELDS}>
          Created before
          <input
            type="datetime-local"
            className={inputClass}
            value={value("to")}
            onChange={(e) => onChange("to", e.target.value)}
          />
        </label>
        <label className={FIELDS}>
          Task ID starts with
          <input
            type="search"
            className={`${inputClass} font-mono`}
            placeholder="e.g. 3f2a9c"
            value={value("q")}
            onChange={(e) => onChange("q", e.target.value)}
            autoComplete="off"
            spellCheck={false}
          />
        </label>
        <label className={`${FIELDS} col-span-2 xl:col-span-4`}>
          Input matches
          <input
            type="search"
            className={`${inputClass} font-mono`}
            placeholder="e.g. amount > 100 and expense_id = E-1"
            value={value("input")}
            onChange={(e) => onChange("input", e.target.value)}
            aria-invalid={inputError ? true : undefined}
            aria-describedby="input-filter-help"
            autoComplete="off"
            spellCheck={false}
          />
          <span id="input-filter-help" className={inputError ? "text-red-700" : "font-normal text-slate-500"}>
            {inputError ?? "field = value, != > >= < <=, joined with and; dots for nested fields"}
          </span>
        </label>
        <label className={`${FIELDS} col-span-2`}>
          Answered by
          <input
            type="search"
            className={inputClass}
            placeholder="operator email or operator:<id>"
            value={value("answered")}
            onChange={(e) => onChange("answered", e.target.value)}
            autoComplete="off"
            spellCheck={false}
          />
        </label>
      </form>
    </search>
  );
}
