"use client";

import type { TenantDetail } from "@/lib/ui/presenters/tenants";
import { ActionForm } from "../../_components/action-form";
import { buttonClass, Empty, inputClass, secondaryButtonClass } from "../../_components/ui";
import { addMemberForm, removeMemberForm } from "../../actions";

export function MembersPanel({
  tenantId,
  members,
  operators,
}: {
  tenantId: string;
  members: TenantDetail["members"];
  operators: TenantDetail["operators"];
}) {
  const isAdmin = operators !== null;
  const candidates = (operators ?? []).filter((o) => o.role === "operator" && !members.some((m) => m.id === o.id));
  return (
    <div className="flex flex-col gap-4">
      <p className="text-xs text-slate-500">Admins see every tenant without being members.</p>
      {members.length === 0 ? (
        <Empty>No members.</Empty>
      ) : (
        <ul className="divide-y divide-slate-100 text-sm">
          {members.map((member) => (
            <li key={member.id} className="flex items-center gap-2 py-2">
              <span className="min-w-0 flex-1 truncate">{member.email}</span>
              {member.disabled && <span className="text-xs text-red-700">disabled</span>}
              {isAdmin && (
                <ActionForm label={`Remove member ${member.email}`} action={removeMemberForm}>
                  <input type="hidden" name="tenantId" value={tenantId} />
                  <input type="hidden" name="operatorId" value={member.id} />
                  <button type="submit" className={secondaryButtonClass} aria-label={`Remove ${member.email}`}>
                    Remove
                  </button>
                </ActionForm>
              )}
            </li>
          ))}
        </ul>
      )}
      {isAdmin && (
        <ActionForm label="Add member" action={addMemberForm} className="flex flex-wrap items-end gap-2">
          <input type="hidden" name="tenantId" value={tenantId} />
          <label className="flex min-w-0 flex-1 flex-col gap-1 text-sm font-medium text-slate-700">
            Operator email
            <input name="email" type="email" required list="operator-emails" className={inputClass} />
          </label>
          <datalist id="operator-emails">
            {candidates.map((o) => (
              <option key={o.id} value={o.email} />
            ))}
          </datalist>
          <button type="submit" className={buttonClass}>
            Add
          </button>
        </ActionForm>
      )}
    </div>
  );
}
