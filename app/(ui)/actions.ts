"use server";

import { coerceError, createLogger } from "@runifold/sdk";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { OperatorContext } from "@/lib/auth";
import { webContext } from "@/lib/auth/web";
import { isAppError } from "@/lib/errors";
import { createKeyAction, revokeKeyAction } from "@/lib/ui/actions/key-actions";
import { disableRouteAction, saveRouteAction } from "@/lib/ui/actions/route-actions";
import { type AnswerOutcome, answerInputAction, cancelTaskAction } from "@/lib/ui/actions/task-actions";
import {
  addMemberAction,
  createOperatorAction,
  createTenantAction,
  removeMemberAction,
  setOperatorDisabledAction,
} from "@/lib/ui/actions/tenant-actions";

// Server actions are public POST endpoints: each body below starts with requireOperator (inside the
// lib/ui/actions function it calls), including the same-origin check. These wrappers only translate
// errors into a result the form can show and refresh the pages that changed.

export type ActionResult<T = null> = { ok: true; data: T } | { ok: false; error: string };

const log = createLogger("ui-actions");

async function run<T>(body: (ctx: OperatorContext) => Promise<T>, paths: string[] = []): Promise<ActionResult<T>> {
  try {
    const data = await body(webContext());
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
}

export async function createTenant(input: { slug: string; name: string }) {
  return run((ctx) => createTenantAction(ctx, input), ["/tenants"]);
}

export async function createOperator(input: { email: string; password: string; role: string }) {
  return run((ctx) => createOperatorAction(ctx, input), ["/tenants"]);
}

export async function setOperatorDisabled(input: { operatorId: string; disabled: boolean }) {
  return run((ctx) => setOperatorDisabledAction(ctx, input), ["/tenants"]);
}

export async function addMember(input: { tenantId: string; email: string }) {
  return run((ctx) => addMemberAction(ctx, input), ["/tenants"]);
}

export async function removeMember(input: { tenantId: string; operatorId: string }) {
  return run((ctx) => removeMemberAction(ctx, input), ["/tenants"]);
}

export async function createKey(input: { tenantId: string; name: string; scopes: string[] }) {
  // No revalidation here: the form shows the token first, then refreshes the page itself.
  return run((ctx) => createKeyAction(ctx, input));
}

export async function revokeKey(input: { tenantId: string; keyId: string }) {
  return run((ctx) => revokeKeyAction(ctx, input), ["/tenants"]);
}

export async function saveRoute(input: Record<string, unknown>) {
  return run((ctx) => saveRouteAction(ctx, input), ["/routes"]);
}

export async function disableRoute(input: { tenantId: string; toolName: string }) {
  return run((ctx) => disableRouteAction(ctx, input), ["/routes"]);
}

export async function cancelTask(input: { taskId: string }) {
  return run((ctx) => cancelTaskAction(ctx, input));
}

export async function answerInput(input: {
  taskId: string;
  key: string;
  action: "accept" | "decline";
  values: Record<string, unknown>;
}) {
  // Not revalidated: the form keeps its confirmation on screen; the inbox's own refresh drops the item.
  return run<AnswerOutcome>((ctx) => answerInputAction(ctx, input));
}
