import { randomUUID } from "node:crypto";
import type { Account, User } from "next-auth";
import type { JWT } from "next-auth/jwt";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endAllOperatorSessions, setOperatorDisabled } from "../../db/queries/operators";
import { requireOperator, signInMethods } from "../../lib/auth";
import { buildAuthOptions } from "../../lib/auth/web";
import { readEnv } from "../../lib/env";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator } from "../ui/helpers";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
});
afterAll(async () => {
  await db.drop();
});

const OIDC_ENV = {
  RUNIFOLD_OIDC_ISSUER: "https://idp.example.test",
  RUNIFOLD_OIDC_CLIENT_ID: "runifold",
  RUNIFOLD_OIDC_CLIENT_SECRET: "client-secret",
  RUNIFOLD_OIDC_NAME: "Example",
};
const options = (env: Record<string, string> = OIDC_ENV) => buildAuthOptions(readEnv(env), { sql: () => sql });
const oidcAccount = { provider: "oidc", type: "oauth", providerAccountId: "sub-1" } as Account;

/** What next-auth does on an OIDC callback without an adapter: signIn, then jwt with the same user object. */
async function ssoCallback(opts: ReturnType<typeof options>, claims: Record<string, unknown>) {
  const user = { id: String(claims.sub), email: String(claims.email) } as User;
  const allowed = await opts.callbacks?.signIn?.({ user, account: oidcAccount, profile: claims });
  if (allowed !== true) return { allowed };
  const token = (await opts.callbacks?.jwt?.({ token: {} as JWT, user, account: oidcAccount, trigger: "signIn" })) as JWT;
  return { allowed, token };
}

/** The context requireOperator gets for a request carrying `token` (as webContext reads the session). */
function sessionContext(token: JWT) {
  return {
    ...contextFor(sql, token.sub ?? null),
    sessionClaims: async () => ({ sessionId: token.sid as string, sessionVersion: token.sv as number }),
  };
}

describe("SSO sessions are operator sessions", () => {
  it("puts the operator, not the provider's subject, into the JWT, with a session row and version requireOperator checks", async () => {
    const op = await makeOperator(sql, "admin");
    const { allowed, token } = await ssoCallback(options(), { sub: randomUUID(), email: op.email, email_verified: true });
    expect(allowed).toBe(true);
    expect(token).toMatchObject({ sub: op.id, sid: expect.any(String), sv: 0 });
    const ctx = sessionContext(token as JWT);
    expect((await requireOperator(ctx)).id).toBe(op.id);

    await endAllOperatorSessions(sql, op.id);
    await expect(requireOperator(ctx)).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("is refused on the next request once the operator is disabled", async () => {
    const op = await makeOperator(sql, "operator");
    const { token } = await ssoCallback(options(), { sub: "s", email: op.email, email_verified: true });
    await setOperatorDisabled(sql, { operatorId: op.id, disabled: true });
    await expect(requireOperator(sessionContext(token as JWT))).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("sends a refusal back to /login with its reason, and makes no session", async () => {
    const result = await ssoCallback(options(), { sub: "s", email: "nobody@sso.test", email_verified: true });
    expect(result).toEqual({ allowed: "/login?error=sso_unknown" });
    const rows =
      await sql`SELECT 1 FROM operator_sessions s JOIN operators o ON o.id = s.operator_id WHERE o.email = 'nobody@sso.test'`;
    expect(rows).toHaveLength(0);
  });

  it("never makes a session for an SSO user the signIn callback did not map", async () => {
    // A Keycloak-style subject is a UUID: it must not be taken for an operator id.
    const op = await makeOperator(sql, "admin");
    const user = { id: op.id } as User;
    await expect(options().callbacks?.jwt?.({ token: {} as JWT, user, account: oidcAccount })).rejects.toThrow(/not mapped/);
  });
});

describe("sign-in methods from the environment", () => {
  const ids = (env: Record<string, string>) => options(env).providers.map((provider) => provider.id);

  it("offers the password alone by default, both with OIDC, and only SSO with RUNIFOLD_PASSWORD_SIGNIN=off", () => {
    expect(ids({})).toEqual(["credentials"]);
    expect(ids(OIDC_ENV)).toEqual(["credentials", "oidc"]);
    expect(ids({ ...OIDC_ENV, RUNIFOLD_PASSWORD_SIGNIN: "off" })).toEqual(["oidc"]);
    expect(signInMethods(readEnv({ ...OIDC_ENV, RUNIFOLD_PASSWORD_SIGNIN: "off" }))).toEqual({
      sso: { providerId: "oidc", name: "Example" },
      password: false,
    });
    expect(signInMethods(readEnv({}))).toEqual({ sso: null, password: true });
  });

  it("refuses a half-configured SSO, an admin group without a groups claim, and password off without SSO", () => {
    expect(() => readEnv({ RUNIFOLD_OIDC_ISSUER: "https://idp.example.test" })).toThrow(/RUNIFOLD_OIDC_ISSUER: set .* together/);
    expect(() => readEnv({ ...OIDC_ENV, RUNIFOLD_OIDC_ADMIN_GROUP: "admins" })).toThrow(/RUNIFOLD_OIDC_ADMIN_GROUP/);
    expect(() => readEnv({ RUNIFOLD_PASSWORD_SIGNIN: "off" })).toThrow(/RUNIFOLD_PASSWORD_SIGNIN/);
    expect(() => readEnv({ RUNIFOLD_OIDC_JIT_TENANT: "acme" })).toThrow(/RUNIFOLD_OIDC_JIT_TENANT/);
    expect(() => readEnv({ ...OIDC_ENV, RUNIFOLD_OIDC_SCOPES: "email profile" })).toThrow(/must include openid/);
  });

  it("discovers the provider from the issuer, with PKCE and state, and never exposes the client secret to the page", () => {
    const provider = options({ ...OIDC_ENV, RUNIFOLD_OIDC_ISSUER: "https://idp.example.test/realms/x/" }).providers[1];
    expect(provider).toMatchObject({
      type: "oauth",
      wellKnown: "https://idp.example.test/realms/x/.well-known/openid-configuration",
      idToken: true,
      checks: ["pkce", "state"],
    });
    expect(JSON.stringify(signInMethods(readEnv(OIDC_ENV)))).not.toContain("client-secret");
  });
});
