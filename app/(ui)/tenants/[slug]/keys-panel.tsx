"use client";

import type { TenantDetail } from "@/lib/ui/presenters/tenants";
import { ActionForm } from "../../_components/action-form";
import { ShownOnce } from "../../_components/shown-once";
import { buttonClass, dangerButtonClass, Empty, inputClass, Time } from "../../_components/ui";
import { createKeyForm, revokeKeyForm } from "../../actions";

const SCOPES = ["mcp", "tasks:read", "tasks:write"];

export function KeysPanel({ tenantId, keys }: { tenantId: string; keys: TenantDetail["keys"] }) {
  return (
    <div className="flex flex-col gap-4">
      {keys.length === 0 ? (
        <Empty>No keys yet.</Empty>
      ) : (
        <ul className="divide-y divide-slate-100 text-sm">
          {keys.map((key) => (
            <li key={key.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
              <span className="font-medium">{key.name}</span>
              <code className="text-xs text-slate-500">rf_{key.id}_…</code>
              <span className="text-xs text-slate-500">{key.scopes.join(", ")}</span>
              <span className="min-w-0 flex-1 text-xs text-slate-500">
                last used <Time iso={key.lastUsedAt} />
              </span>
              {key.revokedAt ? (
                <span className="text-xs text-red-700">revoked</span>
              ) : (
                <ActionForm label={`Revoke API key ${key.name}`} action={revokeKeyForm}>
                  <input type="hidden" name="tenantId" value={tenantId} />
                  <input type="hidden" name="keyId" value={key.id} />
                  <button type="submit" className={dangerButtonClass} aria-label={`Revoke key ${key.name}`}>
                    Revoke
                  </button>
                </ActionForm>
              )}
            </li>
          ))}
        </ul>
      )}
      <ActionForm
        label="Create API key"
        action={createKeyForm}
        shown={(data, dismiss) => <ShownOnce value={data.token} what="key" testId="new-token" onDone={dismiss} />}
        className="flex flex-wrap items-end gap-3"
      >
        <input type="hidden" name="tenantId" value={tenantId} />
        <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
          Key name
          <input name="name" required maxLength={100} className={inputClass} placeholder="ci-bot" />
        </label>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-700">Scopes</legend>
          <div className="flex gap-3 py-2">
            {SCOPES.map((scope) => (
              <label key={scope} className="flex items-center gap-1.5 text-sm">
                <input type="checkbox" name="scopes" value={scope} defaultChecked className="size-4" />
                {scope}
              </label>
            ))}
          </div>
        </fieldset>
        <button type="submit" className={buttonClass}>
          Create key
        </button>
      </ActionForm>
    </div>
  );
}
