"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { dangerButtonClass } from "../_components/ui";
import { revokeConnection, revokeTenantConnection } from "../actions";

/** Revokes one connected client (its every token) after a confirmation; `tenant` = an admin revoking someone's. */
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
  const router = useRouter();
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        className={dangerButtonClass}
        disabled={pending}
        aria-label={`Revoke ${clientName}`}
        onClick={() =>
          start(async () => {
            if (!window.confirm(`Revoke ${clientName}? It loses access at once.`)) return;
            const result =
              scope === "own" ? await revokeConnection({ grantId }) : await revokeTenantConnection({ grantId, tenantId });
            if (!result.ok) return setError(result.error);
            setError(null);
            router.refresh();
          })
        }
      >
        Revoke
      </button>
      {error && (
        <span role="alert" className="block text-xs text-red-700">
          {error}
        </span>
      )}
    </>
  );
}
