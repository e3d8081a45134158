import { isUuid } from "@runifold/store";
import { z } from "zod";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { parseInput } from "./parse-input";

/** A group name as approval policies name them: 1-100 characters, no commas (the CLI's list separator) or spaces. */
const groupRule = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^\s,]+$/, "a group name has no spaces or commas");

export const ZSetOperatorGroups = z.object({
  operatorId: z.string(),
  groups: z.array(groupRule).max(100),
});

/**
 * Replaces an operator's groups (what approval policies' `approvers.groups` match, docs/approvals.md):
 * set by an admin for password operators; SSO operators' groups come from the groups claim. Audited
 * as `operator.groups.set` with the new list. Returns the stored list (deduplicated, sorted).
 */
export async function setOperatorGroups(ctx: AdminContext, input: z.input<typeof ZSetOperatorGroups>): Promise<string[]> {
  const { operatorId, groups } = parseInput(ZSetOperatorGroups, input);
  const stored = [...new Set(groups)].sort();
  if (!isUuid(operatorId)) throw new AppError("not_found");
  const rows = await ctx.sql.unsafe("UPDATE operators SET groups = $2::text[] WHERE id = $1 RETURNING 1", [operatorId, stored]);
  if (rows.length === 0) throw new AppError("not_found");
  await audit(ctx, "operator.groups.set", { targetOperatorId: operatorId, groups: stored.join(",") });
  return stored;
}
