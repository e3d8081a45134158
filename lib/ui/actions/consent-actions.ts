import "server-only";
import { z } from "zod";
import { actorLabel } from "../../admin";
import { AppError } from "../../errors";
import { denyAuthorization, issueAuthorizationCode, type OAuthConfig, validateAuthorizationRequest } from "../../oauth";
import { consentTenants, describeScopes } from "../presenters/consent";
import { operatorAction, rawField } from "./operator-action";

export const ZConsentDecision = z.object({
  /** The authorize query the page was rendered from (the form's hidden field). */
  request: z.string().max(16_384),
  decision: z.enum(["approve", "deny"]),
  tenantId: z.string().max(100).default(""),
  /** The scopes the person left ticked. */
  scopes: z.array(z.string().max(100)).max(20).default([]),
});

/**
 * The person's answer on the consent page, as the URL to send the browser to. Everything the form
 * posts is untrusted: the request is validated again exactly as when the page was shown (a client
 * whose registration changed meanwhile is refused the same way), the tenant must be one the person
 * may act in, and the scopes can only narrow what the client asked for. operatorAction adds the
 * same-origin check and the session (Next's own Origin check on server actions is a second layer).
 */
export function consentDecisionAction(config: OAuthConfig) {
  return operatorAction(
    ZConsentDecision,
    async (ctx, input) => {
      const validated = await validateAuthorizationRequest(ctx.sql, config, new URLSearchParams(input.request));
      if (!validated.ok) {
        if (validated.redirect) return validated.redirect;
        throw new AppError("bad_request", `This authorization request is not valid: ${validated.description}.`);
      }
      if (input.decision === "deny") return denyAuthorization(validated, { sql: ctx.sql, operatorId: ctx.operator.id });

      const tenants = await consentTenants(ctx.sql, ctx.operator);
      if (!tenants.some((tenant) => tenant.id === input.tenantId)) throw new AppError("bad_request", "Choose a tenant.");
      // Narrow, never widen: only requested scopes survive, and a required one cannot be dropped.
      const granted = describeScopes(validated.scopes)
        .filter((choice) => choice.required || input.scopes.includes(choice.scope))
        .map((choice) => choice.scope);
      if (granted.length === 0) throw new AppError("bad_request", "Grant at least one scope, or deny the request.");
      return issueAuthorizationCode(ctx.sql, config, {
        request: validated,
        operatorId: ctx.operator.id,
        actorLabel: actorLabel(ctx.actor),
        tenantId: input.tenantId,
        scopes: granted,
      });
    },
    // Approving hands a client a credential: it needs a recent authentication (ASVS 3.7.1); denying does not.
    { recentAuth: (input) => rawField(input, "decision") !== "deny" },
  );
}
