import { z } from "zod";
import { endAllOperatorSessions } from "../../db/queries/operators";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { endOperatorCredentials } from "./containment";
import { parseInput } from "./parse-input";
import { idRule } from "./rules";

export const ZSignOutEverywhere = z.object({ operatorId: idRule });

/**
 * "Sign out everywhere" (ASVS 3.3.3, 3.3.4): the operator's session version is bumped and every
 * session row ended, so every cookie of it is refused on its next request; the OAuth grants it
 * approved are revoked too (their tokens are sessions of the same person in the clients). An operator may do it
 * for itself; an admin for anyone (the console's action checks which).
 */
export async function signOutEverywhere(ctx: AdminContext, input: z.input<typeof ZSignOutEverywhere>): Promise<void> {
  const { operatorId } = parseInput(ZSignOutEverywhere, input);
  if (!(await endAllOperatorSessions(ctx.sql, operatorId))) throw new AppError("not_found");
  await audit(ctx, "operator.sessions.end", { targetOperatorId: operatorId });
  await endOperatorCredentials(ctx, { operatorId, reason: "sessions_ended", keys: false });
}
