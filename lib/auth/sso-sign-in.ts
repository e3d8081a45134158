import { randomBytes } from "node:crypto";
import { inTransaction, isUniqueViolation, type SqlHandle } from "@runifold/store";
import { z } from "zod";
import {
  addOperatorTenant,
  createOperator,
  findOperatorByEmail,
  normalizeEmail,
  type OperatorRole,
  type OperatorRow,
} from "../../db/queries/operators";
import { findTenantBySlug } from "../../db/queries/tenants";
import { MAX_EMAIL_LENGTH, type SignedInOperator } from "./authenticate-operator";
import type { OidcSettings } from "./oidc-settings";
import { hashPassword } from "./passwords";
import { recordSignInEvent } from "./sign-in-audit";

/**
 * Why an SSO sign-in was refused; the login page has one message for each (lib/auth/sign-in-errors.ts).
 * `jit_unavailable`: just-in-time creation is configured but its tenant is missing or disabled.
 */
export const SSO_REFUSALS = ["no_email", "email_unverified", "unknown", "disabled", "jit_unavailable"] as const;
export type SsoRefusal = (typeof SSO_REFUSALS)[number];

export type SsoOutcome =
  | { ok: true; operator: SignedInOperator; created: boolean }
  | { ok: false; reason: SsoRefusal; operatorId?: string };

/** The identity provider's claims about the person (ID token and userinfo), as next-auth hands them over. */
export type SsoClaims = Record<string, unknown>;

export type SsoSettings = Pick<OidcSettings, "issuer" | "emailClaim" | "jitTenantSlug" | "groupsClaim" | "adminGroup">;

const ZEmail = z.string().trim().toLowerCase().max(MAX_EMAIL_LENGTH).pipe(z.email());
const MAX_NAME_LENGTH = 200;

/** Some providers send the flag as the string "true"; anything else (absent, false, "false") is unverified. */
function isVerified(value: unknown): boolean {
  return value === true || value === "true";
}

function groupsOf(claims: SsoClaims, claim: string | null): string[] {
  const value = claim ? claims[claim] : undefined;
  if (Array.isArray(value)) return value.filter((group): group is string => typeof group === "string");
  return typeof value === "string" ? [value] : [];
}

function signedIn(row: OperatorRow): SignedInOperator {
  return { id: row.id, email: row.email, name: row.name, mustChangePassword: row.must_change_password };
}

/**
 * Maps a person the identity provider vouched for to an operator row, by email: the `email` claim
 * only when `email_verified` is true (an unverified address is anyone's to type), or the configured
 * claim, which the provider asserts by itself. A disabled operator is refused. An unknown person is
 * refused, or with `jitTenantSlug` created as a member of that tenant, an admin when the groups
 * claim holds `adminGroup`. Roles of existing operators are the console's to manage: a sign-in
 * never changes them; their groups follow the groups claim when one is configured (syncGroups). Every outcome is stored in the audit trail.
 */
export async function signInWithSso(
  sql: SqlHandle,
  params: { settings: SsoSettings; claims: SsoClaims; clientAddress?: string | null },
): Promise<SsoOutcome> {
  const { settings, claims } = params;
  const address = params.clientAddress ?? null;
  const subject = typeof claims.sub === "string" ? claims.sub.slice(0, 255) : "";
  const context = { issuer: settings.issuer, subject };
  const refuse = async (reason: SsoRefusal, extra: { operatorId?: string; email?: string } = {}): Promise<SsoOutcome> => {
    await recordSignInEvent(sql, {
      action: "operator.sso_refused",
      operatorId: extra.operatorId ?? null,
      address,
      // The email came from the identity provider, not from a typed field: it names who to add, and holds no secret.
      fields: { reason, ...context, ...(extra.email ? { email: extra.email } : {}) },
    });
    return { ok: false, reason, ...(extra.operatorId ? { operatorId: extra.operatorId } : {}) };
  };

  const parsed = ZEmail.safeParse(claims[settings.emailClaim]);
  if (!parsed.success) return refuse("no_email");
  const email = normalizeEmail(parsed.data);
  if (settings.emailClaim === "email" && !isVerified(claims.email_verified)) return refuse("email_unverified", { email });

  let row = await findOperatorByEmail(sql, email);
  let created = false;
  if (!row) {
    if (!settings.jitTenantSlug) return refuse("unknown", { email });
    const tenant = await findTenantBySlug(sql, settings.jitTenantSlug);
    if (!tenant || tenant.disabled_at) return refuse("jit_unavailable", { email });
    const role: OperatorRole =
      settings.adminGroup && groupsOf(claims, settings.groupsClaim).includes(settings.adminGroup) ? "admin" : "operator";
    const name = typeof claims.name === "string" ? claims.name.trim().slice(0, MAX_NAME_LENGTH) : "";
    const createdRow = await createJitOperator(sql, { email, name, role, tenantId: tenant.id });
    if (createdRow) {
      created = true;
      row = createdRow;
      await recordSignInEvent(sql, {
        action: "operator.jit_created",
        operatorId: row.id,
        address,
        tenantId: tenant.id,
        fields: { ...context, role, tenantId: tenant.id },
      });
    } else {
      // Two first sign-ins of one person at once: the other created the row; sign in to it.
      row = await findOperatorByEmail(sql, email);
      if (!row) return refuse("unknown", { email });
    }
  }
  if (row.disabled_at) return refuse("disabled", { operatorId: row.id, email });
  const groupsChanged = settings.groupsClaim ? await syncGroups(sql, row.id, groupsOf(claims, settings.groupsClaim)) : false;
  await recordSignInEvent(sql, {
    action: "operator.sso_sign_in",
    operatorId: row.id,
    address,
    fields: { ...context, created, ...(groupsChanged ? { groups: groupsChanged } : {}) },
  });
  return { ok: true, operator: signedIn(row), created };
}

/**
 * With a groups claim configured, the operator's groups (what approval policies name,
 * docs/approvals.md) are the claim's at each sign-in: names of 1-100 characters without spaces or
 * commas, at most 100, sorted. Returns the new list (comma-joined, for the audit) when it changed.
 * Roles are never taken from it for an existing operator (above); groups are only what policies read.
 */
async function syncGroups(sql: SqlHandle, operatorId: string, claimed: string[]): Promise<string | false> {
  const groups = [...new Set(claimed.map((group) => group.trim()).filter((group) => /^[^\s,]{1,100}$/.test(group)))]
    .sort()
    .slice(0, 100);
  const rows = await sql.unsafe(
    "UPDATE operators SET groups = $2::text[] WHERE id = $1 AND groups IS DISTINCT FROM $2::text[] RETURNING 1",
    [operatorId, groups],
  );
  return rows.length === 1 ? groups.join(",") : false;
}

/**
 * The operator and its membership in one transaction, or undefined when the email was taken in the
 * meantime. Its password is the hash of a random secret nobody ever sees: the row has a password
 * like every other (operators.password_hash is required), but it cannot be guessed, and a password
 * sign-in with that email costs the same scrypt work as any other, so it reveals nothing.
 */
async function createJitOperator(
  sql: SqlHandle,
  params: { email: string; name: string; role: OperatorRole; tenantId: string },
): Promise<OperatorRow | undefined> {
  const passwordHash = await hashPassword(randomBytes(32).toString("base64url"));
  try {
    return await inTransaction(sql, async (tx) => {
      const row = await createOperator(tx, { email: params.email, name: params.name, passwordHash, role: params.role });
      await addOperatorTenant(tx, { operatorId: row.id, tenantId: params.tenantId });
      return row;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}
