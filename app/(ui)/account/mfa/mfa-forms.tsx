"use client";

import type { MfaStatus } from "@/lib/ui/presenters/mfa";
import { ActionForm } from "../../_components/action-form";
import { buttonClass, dangerButtonClass, inputClass, secondaryButtonClass } from "../../_components/ui";
import { beginMfaForm, confirmMfaForm, disableMfaForm } from "../../actions";

const LABEL = "flex flex-col gap-1 text-sm font-medium text-slate-700";

/**
 * Set-up, confirmation and turning off. The confirmation form stays in the tree in every state, so
 * the recovery codes its action returns are shown (once) even when the page around it has already
 * changed to "on" — with or without scripts.
 */
export function MfaPanel({ status }: { status: MfaStatus }) {
  return (
    <div className="flex flex-col gap-4">
      {status.state === "off" && (
        <ActionForm label="Set up two-factor authentication" action={beginMfaForm} className="flex flex-col gap-3">
          <p className="text-sm text-slate-600">Two-factor authentication is off.</p>
          <button type="submit" className={`${buttonClass} self-start`}>
            Set up two-factor authentication
          </button>
        </ActionForm>
      )}
      {status.state === "on" && (
        <div className="flex flex-col gap-3">
          <p role="status" className="text-sm text-emerald-700">
            Two-factor authentication is on (since {status.since.slice(0, 10)}). {status.recoveryCodesLeft} recovery code
            {status.recoveryCodesLeft === 1 ? "" : "s"} left.
          </p>
          <ActionForm label="Turn off two-factor authentication" action={disableMfaForm} className="flex flex-col gap-2">
            <p className="text-xs text-slate-500">
              Turning it off needs a recent sign-in (Account → Confirm it is you, within 10 minutes).
            </p>
            <button type="submit" className={`${dangerButtonClass} self-start`}>
              Turn off two-factor authentication
            </button>
          </ActionForm>
        </div>
      )}
      <ActionForm
        label="Confirm two-factor set-up"
        action={confirmMfaForm}
        className="flex flex-col gap-3"
        shown={(data, dismiss) => <RecoveryCodes codes={data.recoveryCodes} onDone={dismiss} />}
      >
        {status.state === "pending" && <PendingSetUp secret={status.secret} uri={status.uri} />}
      </ActionForm>
      {status.state === "pending" && (
        <ActionForm label="Start the set-up over" action={beginMfaForm}>
          <button type="submit" className={secondaryButtonClass}>
            Start over with a new secret
          </button>
        </ActionForm>
      )}
    </div>
  );
}

function PendingSetUp({ secret, uri }: { secret: string; uri: string }) {
  return (
    <>
      <ol className="list-decimal pl-5 text-sm text-slate-700">
        <li>
          In your authenticator app, add an account with this secret key (time-based, 6 digits, every 30 seconds):
          <code data-testid="mfa-secret" className="mt-1 block break-all rounded bg-slate-100 px-2 py-1 font-mono text-sm">
            {secret}
          </code>
          or open this address on the phone:
          <code data-testid="mfa-uri" className="mt-1 block break-all rounded bg-slate-100 px-2 py-1 font-mono text-xs">
            {uri}
          </code>
        </li>
        <li className="mt-2">Enter the 6-digit code the app shows to turn two-factor authentication on.</li>
      </ol>
      <label className={LABEL}>
        Code from the app
        <input
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          maxLength={10}
          pattern="[0-9 ]*"
          className={`${inputClass} max-w-40`}
        />
      </label>
      <button type="submit" className={`${buttonClass} self-start`}>
        Turn on
      </button>
    </>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div role="status" className="mb-2 rounded-md border border-amber-300 bg-amber-50 p-3">
      <p className="text-sm font-medium text-amber-900">
        Two-factor authentication is on. Keep these recovery codes somewhere safe now: each one signs you in once instead of a
        code if you lose the device, and they will not be shown again.
      </p>
      <ul data-testid="recovery-codes" className="mt-2 grid grid-cols-1 gap-1 font-mono text-sm sm:grid-cols-2">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <button type="button" className={`${secondaryButtonClass} mt-2`} onClick={onDone}>
        Done
      </button>
    </div>
  );
}
