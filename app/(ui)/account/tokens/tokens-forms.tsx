"use client";

import type { OperatorTokenView } from "@/lib/ui/presenters/operator-tokens";
import { ActionForm } from "../../_components/action-form";
import { ShownOnce } from "../../_components/shown-once";
import { buttonClass, dangerButtonClass, Empty, inputClass, Time } from "../../_components/ui";
import { createOperatorTokenForm, revokeOperatorTokenForm } from "../../actions";

const LABEL = "flex flex-col gap-1 text-sm font-medium text-slate-700";

const SCOPE_HELP: Record<string, string> = {
  "admin:read": "read tenants, routes, definitions, keys, tasks",
  "admin:write": "add routes, create and revoke keys, cancel and rerun tasks",
  "approvals:decide": "list and decide approvals",
};

/** The list (each revoke is its own POST form) and the create form, whose result shows the token once. */
export function TokensPanel({ tokens, scopes }: { tokens: OperatorTokenView[]; scopes: string[] }) {
  return (
    <div className="flex flex-col gap-4">
      {tokens.length === 0 ? (
        <Empty>No tokens yet.</Empty>
      ) : (
        <ul className="divide-y divide-slate-100 text-sm" aria-label="API tokens">
          {tokens.map((token) => (
            <li key={token.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
              <span className="font-medium">{token.name}</span>
              <code className="text-xs text-slate-500">rfo_{token.id}_…</code>
              <span className="text-xs text-slate-500">{token.scopes.join(", ")}</span>
              <span className="min-w-0 flex-1 text-xs text-slate-500">
                last used <Time iso={token.lastUsedAt} />; expires {token.expiresAt ? <Time iso={token.expiresAt} /> : "never"}
              </span>
              {token.state === "active" ? (
                <ActionForm label={`Revoke token ${token.name}`} action={revokeOperatorTokenForm}>
                  <input type="hidden" name="tokenId" value={token.id} />
                  <button type="submit" className={dangerButtonClass}>
                    Revoke
                  </button>
                </ActionForm>
              ) : (
                <span className="text-xs text-red-700">{token.state}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      <ActionForm
        label="Create API token"
        action={createOperatorTokenForm}
        shown={(data, dismiss) => <ShownOnce value={data.token} what="token" testId="new-operator-token" onDone={dismiss} />}
        className="flex flex-wrap items-end gap-3"
      >
        <label className={LABEL}>
          Token name
          <input name="name" required maxLength={100} className={inputClass} placeholder="laptop" />
        </label>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-700">Scopes</legend>
          <div className="flex flex-wrap gap-3 py-2">
            {scopes.map((scope) => (
              <label key={scope} className="flex items-center gap-1.5 text-sm" title={SCOPE_HELP[scope]}>
                <input type="checkbox" name="scopes" value={scope} defaultChecked={scope !== "admin:write"} className="size-4" />
                {scope}
              </label>
            ))}
          </div>
        </fieldset>
        <label className={LABEL}>
          Expires in days (empty: never)
          <input name="expiresInDays" type="number" min={1} max={36500} className={`${inputClass} max-w-32`} />
        </label>
        <button type="submit" className={buttonClass}>
          Create token
        </button>
      </ActionForm>
    </div>
  );
}
