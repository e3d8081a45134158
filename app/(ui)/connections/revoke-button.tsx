"use client";

import { ActionForm } from "../_components/action-form";
import { dangerButtonClass } from "../_components/ui";
import { revokeConnectionForm, revokeTenantConnectionForm } from "../actions";

/**
 * Revokes one connected client (its every token); `tenant` = an admin revoking someone's. A POST
 * form: it asks first once scripts run, and before they load it revokes at once (nothing can ask).
 */
export function RevokeConnectionButton({
  grantId,
  tenantId,
  clientName,
  scope,
}: {
  grantId: string;
  tenantId: string;
  clientName: string;
  scope: "own" | "tenant";
}) {
  return (
    <ActionForm
      label={`Revoke connection ${clientName}`}
      action={scope === "own" ? revokeConnectionForm : revokeTenantConnectionForm}
      confirm={`Revoke ${clientName}? It loses access at once.`}
    >
      <input type="hidden" name="grantId" value={grantId} />
      {scope === "tenant" && <input type="hidden" name="tenantId" value={tenantId} />}
      <button type="submit" className={dangerButtonClass} aria-label={`Revoke ${clientName}`}>
        Revoke
      </button>
    </ActionForm>
  );
}
