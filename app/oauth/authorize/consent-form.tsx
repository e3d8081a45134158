"use client";

import { useActionState } from "react";
import type { ConsentView } from "@/lib/ui/presenters/consent";
import { buttonClass, secondaryButtonClass } from "../../(ui)/_components/ui";
import { type ConsentState, decideConsent } from "./actions";

type Consent = Extract<ConsentView, { kind: "consent" }>;

/**
 * The decision form. It posts the authorize query it was rendered from (validated again on the
 * server), the tenant and the scopes left ticked; the server answers with a redirect to the client.
 */
export function ConsentForm({ view, operatorEmail }: { view: Consent; operatorEmail: string }) {
  const [state, action, pending] = useActionState<ConsentState, FormData>(decideConsent, null);
  const { client, tenants, scopes } = view;
  return (
    <form
      action={action}
      aria-label="Authorize client"
      className="mt-4 flex flex-col gap-5 rounded-lg border border-slate-200 bg-white p-5 shadow-sm"
    >
      <input type="hidden" name="request" value={view.request} />
      <div>
        <h1 className="text-xl font-semibold tracking-tight text-slate-900">Connect {client.name}?</h1>
        <p className="mt-1 text-sm text-slate-600">
          {client.kind === "cimd" ? (
            <>
              Described by <span className="break-all font-mono text-xs">{client.id}</span>
            </>
          ) : (
            "Registered itself with this server: the name is the client's own claim."
          )}
        </p>
      </div>

      <section aria-label="Redirect" className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3">
        <p className="text-sm text-amber-900">If you approve, access is handed to</p>
        <p className="mt-1 break-all text-lg font-semibold text-amber-950" data-testid="redirect-host">
          {client.redirectHost}
        </p>
        <p className="mt-1 break-all font-mono text-xs text-amber-900">{client.redirectUri}</p>
        <p className="mt-2 text-xs text-amber-900">Approve only if you started this connection from a client you trust.</p>
      </section>

      {tenants.length === 0 ? (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
          You are not a member of any tenant, so there is nothing to connect this client to. Ask an admin to add you to a tenant,
          then start again from the client.
        </p>
      ) : (
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium text-slate-700">Tenant the client acts in</legend>
          {tenants.map((tenant) => (
            <label key={tenant.id} className="flex items-baseline gap-2 text-sm text-slate-800">
              <input type="radio" name="tenantId" value={tenant.id} required defaultChecked={tenants.length === 1} />
              <span className="font-medium">{tenant.slug}</span>
              <span className="truncate text-slate-500">{tenant.name}</span>
            </label>
          ))}
        </fieldset>
      )}

      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium text-slate-700">What it may do, as {operatorEmail}</legend>
        {scopes.map((choice) => (
          <label key={choice.scope} className="flex items-baseline gap-2 text-sm text-slate-800">
            {/* A required scope is always granted; a disabled box is not posted, so the server adds it back. */}
            <input type="checkbox" name="scope" value={choice.scope} defaultChecked disabled={choice.required} />
            <span>
              <span className="font-mono text-xs">{choice.scope}</span> — {choice.description}
              {choice.required && <span className="text-slate-500"> (always)</span>}
            </span>
          </label>
        ))}
      </fieldset>

      {state?.error && (
        <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
          {state.error}
        </p>
      )}
      <div className="flex gap-3">
        <button type="submit" name="decision" value="approve" className={buttonClass} disabled={pending || tenants.length === 0}>
          Approve
        </button>
        <button type="submit" name="decision" value="deny" className={secondaryButtonClass} disabled={pending} formNoValidate>
          Deny
        </button>
      </div>
    </form>
  );
}
