"use server";

import { coerceError, createLogger } from "@runifold/sdk";
import { revalidatePath } from "next/cache";
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
  resendDeliveryInput,
  revokeOperatorTokenInput,
  saveRouteInput,
  setRouteScheduleInput,
  signalTaskInput,
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

export const setOperatorDisabled = serverAction(setOperatorDisabledAction, ["/tenants"]);
export const removeMember = serverAction(removeMemberAction, ["/tenants"]);
export const revokeKey = serverAction(revokeKeyAction, ["/tenants"]);
export const disableRoute = serverAction(disableRouteAction, ["/routes"]);
export const setRouteSchedulePaused = serverAction(setRouteSchedulePausedAction, ["/routes"]);
// Saves nothing: validates a cron expression as it is typed and returns its next fire times.
export const previewSchedule = serverAction(previewScheduleAction);
export const cancelTask = serverAction(cancelTaskAction);
// Not revalidated: the task page navigates to the new task; the list refreshes itself.
export const rerunTask = serverAction(rerunTaskAction);
export const bulkTasks = serverAction(bulkTaskAction);
export const signOutEverywhere = serverAction(signOutEverywhereAction);
// Not revalidated: the form shows the temporary password once, then refreshes the page itself.
export const resetPassword = serverAction(resetPasswordAction);
export const setTenantDisabled = serverAction(setTenantDisabledAction, ["/tenants"]);
export const revokeConnection = serverAction(revokeConnectionAction, ["/connections"]);
export const revokeTenantConnection = serverAction(revokeTenantConnectionAction, ["/connections"]);
// The webhook policy (seal key, SSRF flag) is read per call (the env is parsed once, cached). Create
// (below) and rotate are not revalidated: the page shows the secret once, then refreshes itself.
export const rotateWebhookSecret = serverAction((ctx, input) => rotateWebhookSecretAction(webWebhookPolicy())(ctx, input));
export const deleteWebhook = serverAction(deleteWebhookAction, ["/webhooks"]);
export const setWebhookEnabled = serverAction(setWebhookEnabledAction, ["/webhooks"]);
export const sendWebhookTest = serverAction(sendWebhookTestAction, ["/webhooks"]);

// Forms (each also works before scripts load: see formAction).
export const createTenantForm = formAction(createTenantAction, createTenantInput, ["/tenants"]);
export const createOperatorForm = formAction(createOperatorAction, createOperatorInput, ["/tenants"]);
export const addMemberForm = formAction(addMemberAction, addMemberInput, ["/tenants"]);
// Not revalidated: the form shows the token first, then refreshes the page itself.
export const createKeyForm = formAction(createKeyAction, createKeyInput);
export const createOperatorTokenForm = formAction(createOperatorTokenAction, createOperatorTokenInput, ["/account/tokens"]);
export const revokeOperatorTokenForm = formAction(revokeOperatorTokenAction, revokeOperatorTokenInput, ["/account/tokens"]);
export const saveRouteForm = formAction(saveRouteAction, saveRouteInput, ["/routes"]);
export const setRouteScheduleForm = formAction(setRouteScheduleAction, setRouteScheduleInput, ["/routes"]);
// Not revalidated: the form keeps its confirmation on screen; the inbox's own refresh drops the item.
export const answerInputForm = formAction(answerInputAction, answerInputInput);
// Not revalidated: the task page refreshes itself every 2 s while the task is live.
export const resendDeliveryForm = formAction(resendWebhookDeliveryAction, resendDeliveryInput, ["/webhooks"]);
export const signalTaskForm = formAction(signalTaskAction, signalTaskInput);
export const decideApprovalForm = formAction(decideApprovalAction, decideApprovalInput, ["/approvals"]);
// The client address is read per call, for the email that tells the operator of the change.
export const changePasswordForm = formAction(
  async (ctx, input) => changePasswordFrom((await mfaRequest()).clientAddress)(ctx, input),
  changePasswordInput,
);
export const createWebhookForm = formAction(
  (ctx, input) => createWebhookAction(webWebhookPolicy())(ctx, input),
  createWebhookInput,
);
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
