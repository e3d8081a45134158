"use client";

import { ActionForm } from "../_components/action-form";
import { buttonClass, inputClass, secondaryButtonClass } from "../_components/ui";
import {
  createOperatorForm,
  createTenantForm,
  resetPasswordForm,
  setOperatorDisabledForm,
  setTenantDisabledForm,
} from "../actions";

const LABEL = "flex flex-col gap-1 text-sm font-medium text-slate-700";

export function CreateTenantForm() {
  return (
    <ActionForm label="Create tenant" action={createTenantForm} className="flex flex-col gap-3">
      <label className={LABEL}>
        Slug
        <input
          name="slug"
          required
          pattern="[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?"
          className={inputClass}
          placeholder="tenant-acme"
          aria-describedby="slug-hint"
        />
        <span id="slug-hint" className="text-xs font-normal text-slate-500">
          1–63 lower-case letters, digits and dashes, starting and ending with a letter or digit.
        </span>
      </label>
      <label className={LABEL}>
        Name
        <input name="name" required className={inputClass} placeholder="Acme Corp" />
      </label>
      <button type="submit" className={buttonClass}>
        Create tenant
      </button>
    </ActionForm>
  );
}

type OperatorItem = { id: string; email: string; role: string; disabled: boolean; tenants: string[]; mfa: boolean };

/**
 * Disable or enable a tenant: while disabled its keys, tasks and tools answer like an unknown tenant's.
 * Disabling asks first once scripts run; before they load the post goes straight through.
 */
export function TenantStateButton({ tenantId, slug, disabled }: { tenantId: string; slug: string; disabled: boolean }) {
  return (
    <ActionForm
      label={`${disabled ? "Enable" : "Disable"} tenant ${slug}`}
      action={setTenantDisabledForm}
      confirm={disabled ? undefined : `Disable ${slug}? Its keys stop working at once.`}
    >
      <input type="hidden" name="tenantId" value={tenantId} />
      <input type="hidden" name="disabled" value={String(!disabled)} />
      <button type="submit" className={secondaryButtonClass}>
        {disabled ? `Enable ${slug}` : `Disable ${slug}`}
      </button>
    </ActionForm>
  );
}

/** One operator's Disable/Enable (disabling asks first once scripts run) and Reset password. */
function OperatorActions({ operator }: { operator: OperatorItem }) {
  return (
    <>
      <ActionForm
        label={`${operator.disabled ? "Enable" : "Disable"} operator ${operator.email}`}
        action={setOperatorDisabledForm}
        // Disabling ends its sessions, OAuth grants and the API keys it minted (lib/admin/containment.ts).
        confirm={
          operator.disabled ? undefined : `Disable ${operator.email}? Its sessions, connected clients and API keys stop working.`
        }
      >
        <input type="hidden" name="operatorId" value={operator.id} />
        <input type="hidden" name="disabled" value={String(!operator.disabled)} />
        <button type="submit" className={secondaryButtonClass}>
          {operator.disabled ? `Enable ${operator.email}` : `Disable ${operator.email}`}
        </button>
      </ActionForm>
      <ActionForm
        label={`Reset password of ${operator.email}`}
        action={resetPasswordForm}
        // Rendered from the action's answer, so it shows before scripts load too (never in a URL).
        shown={(data) => (
          <p role="status" className="order-last basis-full rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
            Temporary password for {data.email} (shown once; it must be changed at the next sign-in):{" "}
            <code className="font-mono">{data.temporaryPassword}</code>
          </p>
        )}
      >
        <input type="hidden" name="operatorId" value={operator.id} />
        <button type="submit" className={secondaryButtonClass}>
          Reset password of {operator.email}
        </button>
      </ActionForm>
    </>
  );
}

export function OperatorsAdmin({ operators, selfId }: { operators: OperatorItem[]; selfId: string }) {
  return (
    <div className="flex flex-col gap-4">
      <ul className="divide-y divide-slate-100 text-sm">
        {operators.map((o) => (
          <li key={o.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
            <span className="font-medium">{o.email}</span>
            <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs">{o.role}</span>
            <span className="min-w-0 flex-1 truncate text-slate-500">
              {o.role === "admin" ? "all tenants" : o.tenants.join(", ") || "no tenants"}
            </span>
            <span className={`text-xs ${o.mfa ? "text-emerald-700" : "text-slate-500"}`}>
              {o.mfa ? "two-factor on" : "no two-factor"}
            </span>
            {o.disabled && <span className="text-xs text-red-700">disabled</span>}
            {o.id !== selfId && <OperatorActions operator={o} />}
          </li>
        ))}
      </ul>
      <ActionForm label="Create operator" action={createOperatorForm} className="flex flex-wrap items-end gap-3">
        <label className={LABEL}>
          Email
          <input name="email" type="email" required className={inputClass} />
        </label>
        <label className={LABEL}>
          Initial password
          <input name="password" type="password" required minLength={12} autoComplete="new-password" className={inputClass} />
        </label>
        <label className={LABEL}>
          Role
          <select name="role" className={inputClass} defaultValue="operator">
            <option value="operator">operator (member tenants)</option>
            <option value="admin">admin (all tenants)</option>
          </select>
        </label>
        <button type="submit" className={buttonClass}>
          Create operator
        </button>
      </ActionForm>
    </div>
  );
}
