"use client";

import { ActionForm } from "../_components/action-form";
import { buttonClass, dangerButtonClass, inputClass } from "../_components/ui";
import { changePasswordForm, signOutEverywhereForm } from "../actions";

const LABEL = "flex flex-col gap-1 text-sm font-medium text-slate-700";

export function ChangePasswordForm() {
  return (
    <ActionForm
      label="Change password"
      action={changePasswordForm}
      shown={() => (
        <p role="status" className="mb-3 text-sm text-emerald-700">
          Password changed; your other sessions have ended.
        </p>
      )}
      className="flex flex-col gap-3"
    >
      <label className={LABEL}>
        Current password
        <input name="currentPassword" type="password" required autoComplete="current-password" className={inputClass} />
      </label>
      <label className={LABEL}>
        New password
        <input
          name="newPassword"
          type="password"
          required
          minLength={12}
          maxLength={200}
          autoComplete="new-password"
          className={inputClass}
        />
        <span className="text-xs font-normal text-slate-500">12 to 200 characters. Your other sessions end.</span>
      </label>
      <button type="submit" className={buttonClass}>
        Change password
      </button>
    </ActionForm>
  );
}

/**
 * Ends every session, this one included; the action then clears this browser's session cookie and
 * sends it to the sign-in page (app/(ui)/actions.ts), before the page's scripts load too.
 */
export function SignOutEverywhereButton() {
  return (
    <ActionForm label="Sign out everywhere" action={signOutEverywhereForm}>
      <button type="submit" className={dangerButtonClass}>
        Sign out everywhere
      </button>
    </ActionForm>
  );
}
