"use client";

import { ActionForm } from "../_components/action-form";
import { dangerButtonClass, secondaryButtonClass } from "../_components/ui";
import { deleteWebhookForm, rotateWebhookSecretForm, sendWebhookTestForm, setWebhookEnabledForm } from "../actions";
import { SecretNotice } from "./secret-notice";

/**
 * Send test, enable/disable, rotate the secret (shown once) and delete, for one subscription. Each
 * is a POST form, so it works before the page's scripts load: the new secret is rendered from the
 * action's answer (never put in a URL). Rotate and Delete ask first once scripts run; before they
 * load the post goes straight through (nothing can ask).
 */
export function SubscriptionActions({
  tenantId,
  subscriptionId,
  enabled,
}: {
  tenantId: string;
  subscriptionId: string;
  enabled: boolean;
}) {
  const subscription = (
    <>
      <input type="hidden" name="tenantId" value={tenantId} />
      <input type="hidden" name="subscriptionId" value={subscriptionId} />
    </>
  );
  // The results (the secret, the test's notice) span the row: order puts the secret above the buttons.
  return (
    <div className="flex max-w-xl flex-wrap justify-end gap-2">
      <ActionForm
        label="Send a test delivery"
        action={sendWebhookTestForm}
        shown={() => (
          <p role="status" className="order-last basis-full text-right text-xs text-slate-600">
            Test queued: it appears in the log below once delivered.
          </p>
        )}
      >
        {subscription}
        <button type="submit" className={secondaryButtonClass}>
          Send test
        </button>
      </ActionForm>
      <ActionForm label={enabled ? "Disable the subscription" : "Enable the subscription"} action={setWebhookEnabledForm}>
        {subscription}
        <input type="hidden" name="enabled" value={String(!enabled)} />
        <button type="submit" className={secondaryButtonClass}>
          {enabled ? "Disable" : "Enable"}
        </button>
      </ActionForm>
      <ActionForm
        label="Rotate the signing secret"
        action={rotateWebhookSecretForm}
        confirm="Rotate the signing secret? Receivers must switch to the new one."
        shown={(data, dismiss) => (
          <div className="order-first basis-full">
            <SecretNotice secret={data.secret} onDone={dismiss} />
          </div>
        )}
      >
        {subscription}
        <button type="submit" className={secondaryButtonClass}>
          Rotate secret
        </button>
      </ActionForm>
      <ActionForm
        label="Delete the subscription"
        action={deleteWebhookForm}
        confirm="Delete this subscription and its delivery log?"
      >
        {subscription}
        <button type="submit" className={dangerButtonClass}>
          Delete
        </button>
      </ActionForm>
    </div>
  );
}
