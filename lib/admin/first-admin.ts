import { randomBytes } from "node:crypto";
import { countOperators } from "../../db/queries/operators";
import type { AdminContext } from "./actor";
import { createOperator } from "./operators";

export const FIRST_ADMIN_EMAIL = "admin@runifold.local";

/**
 * RUNIFOLD_SEED=admin (the default with DATABASE_URL): on a store without operators, one admin
 * with a random password that must be changed at first sign-in — no demo tenants, no keys.
 * Returns the password once; the caller shows it to a person and never writes it to a log.
 */
export async function ensureFirstAdmin(ctx: AdminContext): Promise<{ email: string; password: string } | undefined> {
  if ((await countOperators(ctx.sql)) > 0) return undefined;
  const password = randomBytes(18).toString("base64url");
  await createOperator(ctx, { email: FIRST_ADMIN_EMAIL, password, role: "admin", name: "Admin", mustChangePassword: true });
  return { email: FIRST_ADMIN_EMAIL, password };
}
