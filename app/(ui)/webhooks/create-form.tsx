"use client";

import { ActionForm } from "../_components/action-form";
import { buttonClass, inputClass } from "../_components/ui";
import { createWebhookForm } from "../actions";
import { SecretNotice } from "./secret-notice";

export function CreateWebhookForm({ tenants, events }: { tenants: { id: string; slug: string }[]; events: string[] }) {
  return (
    <ActionForm
      label="Create webhook subscription"
      action={createWebhookForm}
      shown={(data, dismiss) => <SecretNotice secret={data.secret} onDone={dismiss} />}
      className="flex flex-wrap items-end gap-3"
    >
      <label className="flex flex-col gap-1 text-sm font-medium text-slate-700">
        Tenant
        <select name="tenantId" className={inputClass} required>
          {tenants.map((t) => (
            <option key={t.id} value={t.id}>
              {t.slug}
            </option>
          ))}
        </select>
      </label>
      <label className="flex min-w-72 flex-1 flex-col gap-1 text-sm font-medium text-slate-700">
        Endpoint URL
        <input
          name="url"
          type="url"
          required
          maxLength={2048}
          placeholder="https://example.com/hooks/runifold"
          className={inputClass}
        />
      </label>
      <fieldset className="flex flex-col gap-1">
        <legend className="text-sm font-medium text-slate-700">Events</legend>
        <div className="flex flex-wrap gap-3 py-2">
          {events.map((event) => (
            <label key={event} className="flex items-center gap-1.5 text-sm">
              <input type="checkbox" name="events" value={event} defaultChecked className="size-4" />
              {event}
            </label>
          ))}
        </div>
      </fieldset>
      <button type="submit" className={buttonClass}>
        Create subscription
      </button>
    </ActionForm>
  );
}
