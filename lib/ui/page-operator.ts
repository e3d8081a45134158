import "server-only";
import { notFound, redirect } from "next/navigation";
import type { OperatorContext } from "../auth";
import {
  AuthenticationStepRequired,
  noteIfDenied,
  type Operator,
  PasswordChangeRequired,
  type RequireOperatorOptions,
  requireOperator,
} from "../auth";
import { webContext } from "../auth/web";
import { AppError, isAppError } from "../errors";

/** Where the console sends an operator whose authentication has a step still due. */
export const STEP_PAGES: Record<AuthenticationStepRequired["step"], string> = {
  second_factor: "/login/mfa",
  mfa_enrolment: "/account/mfa",
  recent_auth: "/account/confirm",
};

/**
 * requireOperator for page loaders: no session (or a disabled operator) goes to the sign-in page,
 * a due authentication step to its page (the second factor, an admin's enrolment);
 * a tenant the operator cannot see, or an admin-only page, is the ordinary 404, recorded as
 * `access.denied` (ASVS 7.2.2; lib/auth/access-denied-audit.ts).
 */
export async function pageOperator(options: RequireOperatorOptions = {}): Promise<{ operator: Operator; ctx: OperatorContext }> {
  const ctx = webContext();
  try {
    return { operator: await requireOperator(ctx, options), ctx };
  } catch (error) {
    if (error instanceof AuthenticationStepRequired) redirect(STEP_PAGES[error.step]);
    if (isAppError(error) && error.code === "unauthenticated") redirect("/login");
    if (error instanceof PasswordChangeRequired) redirect("/account/password");
    if (isAppError(error) && (error.code === "not_found" || error.code === "forbidden")) {
      await noteIfDenied(ctx, error, options.role ? `page:${options.role} only` : "page", { tenantId: options.tenantId });
      notFound();
    }
    throw error;
  }
}

/**
 * A detail page whose object the operator cannot see (another tenant's, or none at all: the two
 * are one answer): the ordinary 404, recorded as `access.denied` for `target` with the id asked for.
 */
export async function deniedPage(ctx: OperatorContext, target: string, input: Record<string, string>): Promise<never> {
  await noteIfDenied(ctx, new AppError("not_found"), target, input);
  notFound();
}
