"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { dangerButtonClass, secondaryButtonClass } from "../_components/ui";
import { deleteWebhook, rotateWebhookSecret, sendWebhookTest, setWebhookEnabled } from "../actions";
import { SecretNotice } from "./secret-notice";

type Result = { ok: true; data: unknown } | { ok: false; error: string };

/** Send test, enable/disable, rotate the secret (shown once) and delete, for one subscription. */
export function SubscriptionActions({
  tenantId,
  subscriptionId,
  enabled,
}: {
  tenantId: string;
  subscriptionId: string;
  enabled: boolean;
}) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const ref = { tenantId, subscriptionId };
  const run = (action: () => Promise<Result>, done?: (data: unknown) => void) =>
    start(async () => {
      const result = await action();
      setError(result.ok ? null : result.error);
      if (result.ok) done?.(result.data);
      router.refresh();
    });
  return (
    <div className="flex flex-col items-end gap-2">
      {secret && <SecretNotice secret={secret} onDone={() => setSecret(null)} />}
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={secondaryButtonClass}
          disabled={pending}
          onClick={() =>
            run(
              () => sendWebhookTest(ref),
              () => setNotice("Test queued: it appears in the log below once delivered."),
            )
          }
        >
          Send test
        </button>
        <button
          type="button"
          className={secondaryButtonClass}
          disabled={pending}
          onClick={() => run(() => setWebhookEnabled({ ...ref, enabled: !enabled }))}
        >
          {enabled ? "Disable" : "Enable"}
        </button>
        <button
          type="button"
          className={secondaryButtonClass}
          disabled={pending}
          onClick={() => {
            if (window.confirm("Rotate the signing secret? Receivers must switch to the new one.")) {
              run(
                () => rotateWebhookSecret(ref),
                (data) => setSecret((data as { secret: string }).secret),
              );
            }
          }}
        >
          Rotate secret
        </button>
        <button
          type="button"
          className={dangerButtonClass}
          disabled={pending}
          onClick={() => {
            if (window.confirm("Delete this subscription and its delivery log?")) run(() => deleteWebhook(ref));
          }}
        >
          Delete
        </button>
      </div>
      {notice && !error && (
        <p role="status" className="text-xs text-slate-600">
          {notice}
        </p>
      )}
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
