import "server-only";
import type { z } from "zod";
import { type AdminContext, parseInput } from "../../admin";
import { noteIfDenied, type Operator, type OperatorContext, type RequireOperatorOptions, requireOperator } from "../../auth";

/** What a console action's body runs with: lib/admin's context plus the operator (for its tenant scope). */
export type OperatorActionContext = AdminContext & { operator: Operator };

export type OperatorActionOptions = {
  /** Only this role may call the action (`admin`: tenants, operators, memberships). */
  role?: RequireOperatorOptions["role"];
  /**
   * The input's `tenantId` must be a tenant the operator sees; any other (or a missing one) is
   * "not found", exactly as for a tenant that does not exist.
   */
  tenantScoped?: boolean;
  /** Callable while an admin's reset asks for a new password (the password change itself). */
  duringPasswordChange?: boolean;
  /** Callable while an admin has yet to enrol a second factor (the enrolment's own actions). */
  duringMfaEnrolment?: boolean;
  /**
   * Needs a recent authentication (ASVS 3.7.1, RECENT_AUTH_MS): always, or when this says so of the
   * raw input (creating an operator only when it is an admin, consent only when approving).
   */
  recentAuth?: boolean | ((input: unknown) => boolean);
};

/**
 * Makes a console server action from an input schema and a body (dub's safe-action shape): every
 * action first runs requireOperator as a mutation (same-origin check, session, role, tenant
 * visibility), then parses its input, then calls the body as the operator. Server actions are
 * public POST endpoints, so none of them may skip this; app/(ui)/actions.ts binds them to Next. A
 * refusal ("not found", "forbidden") is recorded as `access.denied` (ASVS 7.2.2) and rethrown unchanged.
 */
export function operatorAction<S extends z.ZodType, R>(
  schema: S,
  body: (ctx: OperatorActionContext, input: z.output<S>) => Promise<R>,
  options: OperatorActionOptions = {},
): (ctx: OperatorContext, input: unknown) => Promise<R> {
  const target = `action:${body.name || "console"}`;
  return async (ctx, input) => {
    try {
      const operator = await requireOperator(ctx, {
        role: options.role,
        mutating: true,
        tenantId: options.tenantScoped ? tenantIdOf(input) : undefined,
        duringPasswordChange: options.duringPasswordChange,
        duringMfaEnrolment: options.duringMfaEnrolment,
        recentAuth: typeof options.recentAuth === "function" ? options.recentAuth(input) : options.recentAuth,
      });
      const parsed = parseInput(schema, input);
      return await body({ sql: ctx.sql, actor: { kind: "operator", id: operator.id, email: operator.email }, operator }, parsed);
    } catch (error) {
      await noteIfDenied(ctx, error, target, input);
      throw error;
    }
  };
}

/** A field of the raw input, read before parsing (what recentAuth decides on). */
export function rawField(input: unknown, name: string): unknown {
  return typeof input === "object" && input !== null ? (input as Record<string, unknown>)[name] : undefined;
}

/** The raw input's tenantId, read before parsing so that a foreign tenant is "not found" before any validation message. */
function tenantIdOf(input: unknown): string {
  const tenantId = (input as { tenantId?: unknown } | null | undefined)?.tenantId;
  return typeof tenantId === "string" ? tenantId : "";
}
