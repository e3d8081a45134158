import "server-only";
import { notFound, redirect } from "next/navigation";
import type { OperatorContext } from "../auth";
import { type Operator, PasswordChangeRequired, type RequireOperatorOptions, requireOperator } from "../auth";
import { webContext } from "../auth/web";
import { isAppError } from "../errors";

/**
 * requireOperator for page loaders: no session (or a disabled operator) goes to the sign-in page;
 * a tenant the operator cannot see, or an admin-only page, is the ordinary 404.
 */
export async function pageOperator(options: RequireOperatorOptions = {}): Promise<{ operator: Operator; ctx: OperatorContext }> {
  const ctx = webContext();
  try {
    return { operator: await requireOperator(ctx, options), ctx };
  } catch (error) {
    if (isAppError(error) && error.code === "unauthenticated") redirect("/login");
    if (error instanceof PasswordChangeRequired) redirect("/account/password");
    if (isAppError(error) && (error.code === "not_found" || error.code === "forbidden")) notFound();
    throw error;
  }
}
