"use server";

import { coerceError, createLogger } from "@runifold/sdk";
import { revalidatePath } from "next/cache";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import type { OperatorContext } from "@/lib/auth";
import { webContext } from "@/lib/auth/web";
import { isAppError } from "@/lib/errors";
import { mfaRequest } from "@/lib/server/mfa-request";
import { webWebhookPolicy } from "@/lib/server/webhook-policy";
import {
  changePasswordFrom,
  resetPasswordAction,
  setTenantDisabledAction,
  signOutEverywhereAction,
} from "@/lib/ui/actions/account-actions";
import { decideApprovalAction } from "@/lib/ui/actions/approval-actions";
import { bulkTaskAction } from "@/lib/ui/actions/bulk-task-actions";
import { revokeConnectionAction, revokeTenantConnectionAction } from "@/lib/ui/actions/connection-actions";
import { createKeyAction, revokeKeyAction } from "@/lib/ui/actions/key-actions";
import { beginMfaAction, confirmMfaAction, disableMfaAction } from "@/lib/ui/actions/mfa-actions";
import { createOperatorTokenAction, revokeOperatorTokenAction } from "@/lib/ui/actions/operator-token-actions";
import {
  disableRouteAction,
  previewScheduleAction,
  saveRouteAction,
  setRouteScheduleAction,
  setRouteSchedulePausedAction,
} from "@/lib/ui/actions/route-actions";
import { signalTaskAction } from "@/lib/ui/actions/signal-action";
import { answerInputAction, cancelTaskAction, rerunTaskAction } from "@/lib/ui/actions/task-actions";
import {
  addMemberAction,
  createOperatorAction,
  createTenantAction,
  removeMemberAction,
  setOperatorDisabledAction,
} from "@/lib/ui/actions/tenant-actions";
import {
  createWebhookAction,
  deleteWebhookAction,
  resendWebhookDeliveryAction,
  rotateWebhookSecretAction,
  sendWebhookTestAction,
  setWebhookEnabledAction,
} from "@/lib/ui/actions/webhook-actions";
import {
  addMemberInput,
  answerInputInput,
  changePasswordInput,
  confirmMfaInput,
  createKeyInput,
  createOperatorInput,
  createOperatorTokenInput,
  createTenantInput,
  createWebhookInput,
  decideApprovalInput,
  disableRouteInput,
  removeMemberInput,
  resendDeliveryInput,
  resetPasswordInput,
  revokeConnectionInput,
  revokeKeyInput,
  revokeOperatorTokenInput,
  revokeTenantConnectionInput,
  saveRouteInput,
  setOperatorDisabledInput,
  setRouteScheduleInput,
  setRouteSchedulePausedInput,
  setTenantDisabledInput,
  setWebhookEnabledInput,
  signalTaskInput,
  taskRefInput,
  webhookRefInput,
} from "@/lib/ui/form-inputs";

// Server actions are public POST endpoints: each lib/ui/actions action starts with requireOperator
// (lib/ui/actions/operator-action.ts), including the same-origin check, and validates its input.
// Binding one here only adds the request's context, turns errors into a result the form can show,
// and refreshes the pages that changed.

export type ActionResult<T = null> = { ok: true; data: T } | { ok: false; error: string };

const log = createLogger("ui-actions");

function serverAction<T>(action: (ctx: OperatorContext, input: unknown) => Promise<T>, paths: string[] = []) {
  return async (input: unknown): Promise<ActionResult<T>> => {
    try {
      const data = await action(webContext(), input);
      for (const path of paths) revalidatePath(path);
      return { ok: true, data };
    } catch (error) {
      if (isAppError(error)) {
        if (error.code === "unauthenticated") redirect("/login");
        return { ok: false, error: error.message };
      }
      log.error("server action failed", { error: coerceError(error).message });
      return { ok: false, error: "Something went wrong; the server log has the details." };
    }
  };
}

/**
 * The same action bound to a form (app/(ui)/_components/action-form.tsx): `toInput` picks the
 * fields on the server, so the form posts and works before the page's scripts load.
 */
function formAction<T>(
  action: (ctx: OperatorContext, input: unknown) => Promise<T>,
  toInput: (form: FormData) => unknown,
  paths: string[] = [],
) {
  const run = serverAction(action, paths);
  return async (_previous: ActionResult<T> | null, form: FormData): Promise<ActionResult<T>> => run(toInput(form));
}

// Script-only: no state changes. Preview validates a cron expression as it is typed and returns its
// next fire times; the bulk task actions act on rows the task list fetches and selects in the browser
// (without scripts it lists no rows to select), so they stay calls, not forms.
export const previewSchedule = serverAction(previewScheduleAction);
export const bulkTasks = serverAction(bulkTaskAction);

// Forms (each also works before scripts load: see formAction).
export const createTenantForm = formAction(createTenantAction, createTenantInput, ["/tenants"]);
export const setTenantDisabledForm = formAction(setTenantDisabledAction, setTenantDisabledInput, ["/tenants"]);
export const createOperatorForm = formAction(createOperatorAction, createOperatorInput, ["/tenants"]);
export const setOperatorDisabledForm = formAction(setOperatorDisabledAction, setOperatorDisabledInput, ["/tenants"]);
// Not revalidated: the form shows the temporary password once, then refreshes the page itself.
export const resetPasswordForm = formAction(resetPasswordAction, resetPasswordInput);
export const addMemberForm = formAction(addMemberAction, addMemberInput, ["/tenants"]);
export const removeMemberForm = formAction(removeMemberAction, removeMemberInput, ["/tenants"]);
// Not revalidated: the form shows the token first, then refreshes the page itself.
export const createKeyForm = formAction(createKeyAction, createKeyInput);
export const revokeKeyForm = formAction(revokeKeyAction, revokeKeyInput, ["/tenants"]);
export const createOperatorTokenForm = formAction(createOperatorTokenAction, createOperatorTokenInput, ["/account/tokens"]);
export const revokeOperatorTokenForm = formAction(revokeOperatorTokenAction, revokeOperatorTokenInput, ["/account/tokens"]);
export const saveRouteForm = formAction(saveRouteAction, saveRouteInput, ["/routes"]);
export const disableRouteForm = formAction(disableRouteAction, disableRouteInput, ["/routes"]);
export const setRouteScheduleForm = formAction(setRouteScheduleAction, setRouteScheduleInput, ["/routes"]);
export const setRouteSchedulePausedForm = formAction(setRouteSchedulePausedAction, setRouteSchedulePausedInput, ["/routes"]);
// Not revalidated: the form keeps its confirmation on screen; the inbox's own refresh drops the item.
export const answerInputForm = formAction(answerInputAction, answerInputInput);
// Not revalidated: the task page refreshes itself every 2 s while the task is live.
export const signalTaskForm = formAction(signalTaskAction, signalTaskInput);
export const cancelTaskForm = formAction(cancelTaskAction, taskRefInput);
// Not revalidated: the task page goes to the new task (before scripts load, it links to it).
export const rerunTaskForm = formAction(rerunTaskAction, taskRefInput);
export const decideApprovalForm = formAction(decideApprovalAction, decideApprovalInput, ["/approvals"]);
export const revokeConnectionForm = formAction(revokeConnectionAction, revokeConnectionInput, ["/connections"]);
export const revokeTenantConnectionForm = formAction(revokeTenantConnectionAction, revokeTenantConnectionInput, ["/connections"]);
// The client address is read per call, for the email that tells the operator of the change.
export const changePasswordForm = formAction(
  async (ctx, input) => changePasswordFrom((await mfaRequest()).clientAddress)(ctx, input),
  changePasswordInput,
);

/** next-auth's session cookie (the __Secure- name over https): the sessions it names are ended, so it goes too. */
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];
const signOutEverywhereRun = serverAction(signOutEverywhereAction);

/**
 * Sign out everywhere, this session included: on success the cookie goes and the action itself
 * sends the browser to the sign-in page. An action's redirect is a 303, so a post made before
 * scripts load arrives there as a GET; left to the page, the redirect of a session gone would be a
 * 307 that posts the form again, to /login, which refuses it.
 */
export async function signOutEverywhereForm(_previous: ActionResult<void> | null, _form: FormData): Promise<ActionResult<void>> {
  const result = await signOutEverywhereRun({});
  if (!result.ok) return result;
  const store = await cookies();
  for (const name of SESSION_COOKIES) store.delete({ name, path: "/", secure: name.startsWith("__Secure-") });
  redirect("/login");
}

// Webhooks. The policy (seal key, SSRF flag) is read per call (the env is parsed once, cached).
// Create and rotate are not revalidated: the form shows the secret once, then refreshes the page itself.
export const createWebhookForm = formAction(
  (ctx, input) => createWebhookAction(webWebhookPolicy())(ctx, input),
  createWebhookInput,
);
export const rotateWebhookSecretForm = formAction(
  (ctx, input) => rotateWebhookSecretAction(webWebhookPolicy())(ctx, input),
  webhookRefInput,
);
export const setWebhookEnabledForm = formAction(setWebhookEnabledAction, setWebhookEnabledInput, ["/webhooks"]);
export const sendWebhookTestForm = formAction(sendWebhookTestAction, webhookRefInput, ["/webhooks"]);
export const resendDeliveryForm = formAction(resendWebhookDeliveryAction, resendDeliveryInput, ["/webhooks"]);
export const deleteWebhookForm = formAction(deleteWebhookAction, webhookRefInput, ["/webhooks"]);

// Two-factor authentication (Account → Two-factor): the seal key and client address are read per call.
export const beginMfaForm = formAction(
  async (ctx, input) => beginMfaAction(await mfaRequest())(ctx, input),
  () => ({}),
);
// Not revalidated: the form shows the recovery codes once, then refreshes the page itself.
export const confirmMfaForm = formAction(async (ctx, input) => confirmMfaAction(await mfaRequest())(ctx, input), confirmMfaInput);
export const disableMfaForm = formAction(
  async (ctx, input) => disableMfaAction(await mfaRequest())(ctx, input),
  () => ({}),
  ["/account/mfa"],
);
