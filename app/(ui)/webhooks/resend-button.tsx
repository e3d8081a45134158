"use client";

import { useActionState } from "react";
import { secondaryButtonClass } from "../_components/ui";
import { resendDeliveryForm } from "../actions";

/**
 * Resend one failed delivery (the same delivery id, so the receiver sees the same `webhook-id`). It
 * posts to a server action, so it works before the page's scripts load.
 */
export function ResendButton({
  tenantId,
  subscriptionId,
  deliveryId,
}: {
  tenantId: string;
  subscriptionId: string;
  deliveryId: string;
}) {
  const [result, send, pending] = useActionState(resendDeliveryForm, null);
  return (
    <form action={send} aria-label="Resend delivery" className="mt-1">
      <input type="hidden" name="tenantId" value={tenantId} />
      <input type="hidden" name="subscriptionId" value={subscriptionId} />
      <input type="hidden" name="deliveryId" value={deliveryId} />
      <button type="submit" className={`${secondaryButtonClass} px-2 py-1 text-xs`} disabled={pending || result?.ok}>
        {pending ? "Resending…" : result?.ok ? "Resent" : "Resend"}
      </button>
      {result && !result.ok && (
        <p role="alert" className="text-xs text-red-700">
          {result.error}
        </p>
      )}
    </form>
  );
}
