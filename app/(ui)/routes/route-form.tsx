"use client";

import type { RouteItem } from "@/lib/ui/presenters/routes";
import { ActionForm } from "../_components/action-form";
import { buttonClass, inputClass } from "../_components/ui";
import { saveRouteForm } from "../actions";

const LABEL = "flex flex-col gap-1 text-sm font-medium text-slate-700";

/** Adding a tool and revising one are the same: a new revision for (tenant, tool). */
export function RouteForm({
  tenants,
  knownWorkflows,
  current,
}: {
  tenants: { id: string; slug: string }[];
  knownWorkflows: { name: string; version: number; revision: number; servedBy: number }[];
  current?: RouteItem;
}) {
  const names = [...new Set(knownWorkflows.map((w) => w.name))].sort();
  return (
    <ActionForm label="Save route" action={saveRouteForm} className="flex flex-col gap-3">
      <label className={LABEL}>
        Tenant
        <select name="tenantId" required className={inputClass} defaultValue={current?.tenantId}>
          {tenants.map((t) => (
            <option key={t.id} value={t.id}>
              {t.slug}
            </option>
          ))}
        </select>
      </label>
      <label className={LABEL}>
        Tool name
        <input
          name="toolName"
          required
          pattern="[A-Za-z0-9_.\-]{1,128}"
          className={inputClass}
          placeholder="durable_report"
          defaultValue={current?.tool}
        />
      </label>
      <div className="grid grid-cols-3 gap-2">
        <label className={`${LABEL} col-span-2`}>
          Workflow
          <input
            name="workflowName"
            required
            list="workflow-names"
            className={inputClass}
            placeholder="generate-report"
            defaultValue={current?.workflowName}
          />
        </label>
        <label className={LABEL}>
          Version
          <input
            name="workflowVersion"
            type="number"
            min={1}
            step={1}
            required
            defaultValue={current?.workflowVersion ?? 1}
            className={inputClass}
          />
        </label>
      </div>
      <datalist id="workflow-names">
        {names.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <label className={LABEL}>
        Title <span className="font-normal text-slate-500">(optional)</span>
        <input name="title" maxLength={200} className={inputClass} defaultValue={current?.title ?? ""} />
      </label>
      <label className={LABEL}>
        Description <span className="font-normal text-slate-500">(optional)</span>
        <textarea name="description" rows={2} maxLength={2000} className={inputClass} defaultValue={current?.description ?? ""} />
      </label>
      <label className={LABEL}>
        Task support
        <select name="taskSupport" defaultValue={current?.taskSupport ?? "optional"} className={inputClass}>
          <option value="optional">optional (task or plain call)</option>
          <option value="required">required (task only)</option>
          <option value="forbidden">forbidden (plain call only)</option>
        </select>
      </label>
      <label className="flex items-center gap-2 text-sm text-slate-700">
        <input name="allowUnpublished" type="checkbox" />
        Allow an unpublished version (its tool accepts any object as input)
      </label>
      <p className="text-xs text-slate-500">
        {knownWorkflows.length === 0
          ? "No worker has published a definition yet: start runifold-worker with your workflows module."
          : `Published workflows: ${knownWorkflows
              .map((w) => `${w.name}@${w.version}${w.servedBy > 0 ? "" : " (no worker serves it now)"}`)
              .join(", ")}.`}
      </p>
      <button type="submit" className={buttonClass}>
        Save revision
      </button>
    </ActionForm>
  );
}
