"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { ActionForm } from "../_components/action-form";
import { buttonClass, inputClass, secondaryButtonClass } from "../_components/ui";
import { createOperatorForm, createTenantForm, resetPassword, setOperatorDisabled, setTenantDisabled } from "../actions";

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

/** Disable or enable a tenant: while disabled its keys, tasks and tools answer like an unknown tenant's. */
export function TenantStateButton({ tenantId, slug, disabled }: { tenantId: string; slug: string; disabled: boolean }) {
  const router = useRouter();
  const [pending, start] = useTransition();
  return (
    <button
      type="button"
      className={secondaryButtonClass}
      disabled={pending}
      onClick={() =>
        start(async () => {
          if (!disabled && !window.confirm(`Disable ${slug}? Its keys stop working at once.`)) return;
          await setTenantDisabled({ tenantId, disabled: !disabled });
          router.refresh();
        })
      }
    >
      {disabled ? `Enable ${slug}` : `Disable ${slug}`}
    </button>
  );
}

export function OperatorsAdmin({ operators, selfId }: { operators: OperatorItem[]; selfId: string }) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [temporary, setTemporary] = useState<{ email: string; password: string } | null>(null);
  return (
    <div className="flex flex-col gap-4">
      {temporary && (
        <p role="status" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Temporary password for {temporary.email} (shown once; it must be changed at the next sign-in):{" "}
          <code className="font-mono">{temporary.password}</code>
        </p>
      )}
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
            {o.id !== selfId && (
              <button
                type="button"
                className={secondaryButtonClass}
                disabled={pending}
                onClick={() =>
                  start(async () => {
                    // Disabling ends its sessions, OAuth grants and the API keys it minted (lib/admin/containment.ts).
                    if (
                      !o.disabled &&
                      !window.confirm(`Disable ${o.email}? Its sessions, connected clients and API keys stop working.`)
                    )
                      return;
                    await setOperatorDisabled({ operatorId: o.id, disabled: !o.disabled });
                    router.refresh();
                  })
                }
              >
                {o.disabled ? `Enable ${o.email}` : `Disable ${o.email}`}
              </button>
            )}
            {o.id !== selfId && (
              <button
                type="button"
                className={secondaryButtonClass}
                disabled={pending}
                onClick={() =>
                  start(async () => {
                    const result = await resetPassword({ operatorId: o.id });
                    if (result.ok) setTemporary({ email: result.data.email, password: result.data.temporaryPassword });
                  })
                }
              >
                Reset password of {o.email}
              </button>
            )}
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
