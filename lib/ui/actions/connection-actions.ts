import "server-only";
import { z } from "zod";
import { AppError } from "../../errors";
import { revokeGrant } from "../../oauth";
import { operatorAction } from "./operator-action";

// Connected clients (OAuth grants): revoking one ends every token issued under it at once.

const ZRevokeConnection = z.object({ grantId: z.string().max(100) });

/** The person's own connection; anyone else's id is "not found", exactly as an unknown one. */
export const revokeConnectionAction = operatorAction(ZRevokeConnection, async (ctx, { grantId }) => {
  if (!(await revokeGrant(ctx.sql, { grantId, operatorId: ctx.operator.id }))) throw new AppError("not_found");
});

const ZRevokeTenantConnection = z.object({ grantId: z.string().max(100), tenantId: z.string().max(100) });

/** An admin revokes any person's connection in a tenant (the grant must belong to that tenant). */
export const revokeTenantConnectionAction = operatorAction(
  ZRevokeTenantConnection,
  async (ctx, { grantId, tenantId }) => {
    if (!(await revokeGrant(ctx.sql, { grantId, tenantId, actorOperatorId: ctx.operator.id }))) {
      throw new AppError("not_found");
    }
  },
  { role: "admin" },
);
