import { z } from "zod";
import { revokeOperatorApiToken } from "../../db/queries/operator-api-tokens";
import { mintOperatorToken, noticeCredentialChange, OPERATOR_TOKEN_SCOPES, type OperatorTokenScope } from "../auth";
import { AppError } from "../errors";
import type { AdminContext } from "./actor";
import { audit } from "./audit";
import { parseInput } from "./parse-input";
import { expiresInDaysRule, keyNameRule } from "./rules";

const DAY_MS = 86_400_000;

/**
 * An operator's own API token (docs/security.md "Operator API tokens"): a name, at least one scope,
 * and an optional lifetime in days. Only the signed-in operator mints tokens for themself: the
 * actor must be that operator, so no one (not even an admin) mints a credential of someone else.
 */
export const ZCreateOperatorToken = z.object({
  name: keyNameRule,
  scopes: z
    .array(z.enum(OPERATOR_TOKEN_SCOPES, `Scopes are ${OPERATOR_TOKEN_SCOPES.join(", ")}`))
    .min(1, "Choose at least one scope"),
  expiresInDays: expiresInDaysRule.optional(),
});

export type CreatedOperatorToken = { tokenId: string; token: string; scopes: OperatorTokenScope[]; expiresAt: Date | null };

function operatorOf(ctx: AdminContext): { id: string; email: string } {
  if (ctx.actor.kind !== "operator") throw new AppError("forbidden", "Operator API tokens are created by their operator.");
  return ctx.actor;
}

/** Mints a token for the acting operator; the token is returned once and never stored (its SHA-256 is). */
export async function createOperatorToken(
  ctx: AdminContext,
  input: z.input<typeof ZCreateOperatorToken>,
): Promise<CreatedOperatorToken> {
  const operator = operatorOf(ctx);
  const params = parseInput(ZCreateOperatorToken, input);
  const scopes = [...new Set(params.scopes)];
  const expiresAt = params.expiresInDays === undefined ? null : new Date(Date.now() + params.expiresInDays * DAY_MS);
  const { tokenId, token } = await mintOperatorToken(ctx.sql, { operatorId: operator.id, name: params.name, scopes, expiresAt });
  await audit(ctx, "operator_token.create", { tokenId, scopes: scopes.join(","), expiresAt: expiresAt?.toISOString() });
  // A new credential of the account (ASVS 2.2.3): tell its owner, never the token.
  await noticeCredentialChange(ctx.sql, {
    operatorId: operator.id,
    change: "operator_token_created",
    by: "self",
    details: [
      `Token: ${params.name} (${tokenId})`,
      `Scopes: ${scopes.join(", ")}`,
      `Expires: ${expiresAt ? expiresAt.toISOString() : "never"}`,
    ],
  });
  return { tokenId, token, scopes, expiresAt };
}

export const ZRevokeOperatorToken = z.object({
  tokenId: z.string().regex(/^[0-9a-f]{16}$/, "16 hex digits (the part after rfo_ in the token)"),
});

/** Revokes one of the acting operator's own tokens; anyone else's is "not found" like a missing one. */
export async function revokeOperatorToken(ctx: AdminContext, input: z.input<typeof ZRevokeOperatorToken>): Promise<void> {
  const operator = operatorOf(ctx);
  const { tokenId } = parseInput(ZRevokeOperatorToken, input);
  if (!(await revokeOperatorApiToken(ctx.sql, { tokenId, operatorId: operator.id })))
    throw new AppError("not_found", `No active token ${tokenId}`);
  await audit(ctx, "operator_token.revoke", { tokenId });
}
