import "server-only";
import { randomBytes } from "node:crypto";
import type { SqlHandle } from "@runifold/store";
import { headers } from "next/headers";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { endOperatorSession, findOperatorById, insertOperatorSession } from "../../db/queries/operators";
import { type Env, readEnv } from "../env";
import { getSql } from "../server/db";
import { authenticateOperator } from "./authenticate-operator";
import { clientAddressFrom, parseTrustedProxies } from "./client-address";
import { oidcProvider } from "./oidc-provider";
import { OIDC_PROVIDER_ID, oidcSettings, type SignInMethods, signInMethods } from "./oidc-settings";
import { recordSignInEvent } from "./sign-in-audit";
import { type SsoClaims, signInWithSso } from "./sso-sign-in";

declare module "next-auth" {
  interface Session {
    operatorId?: string;
    sessionId?: string;
    sessionVersion?: number;
  }
}

/** Thrown by authorize() for a locked sign-in; the login page shows "try again later". */
export const THROTTLED_ERROR = "throttled";

/** An SSO refusal comes back to /login as `?error=sso_<reason>` (SsoRefusal). */
export const SSO_ERROR_PREFIX = "sso_";

const MAX_AGE_SECONDS = 12 * 60 * 60;

/** Secure cookies (the __Secure- prefix) whenever the console is reached over https (ASVS 3.4.1). */
function secureCookies(env: Env): boolean {
  const url = process.env.NEXTAUTH_URL ?? env.RUNIFOLD_PUBLIC_URL ?? "";
  return url.startsWith("https://");
}

/** The sign-in's client address, read from the request next-auth is answering (null outside one). */
async function requestClientAddress(env: Env): Promise<string | null> {
  try {
    return clientAddressFrom(new Headers(await headers()), parseTrustedProxies(env.RUNIFOLD_TRUSTED_PROXIES));
  } catch {
    return null;
  }
}

/**
 * next-auth v4 with JWT sessions and up to two ways in: Credentials (email and password, unless
 * RUNIFOLD_PASSWORD_SIGNIN=off, when the provider does not exist at all) and OIDC single sign-on
 * (when RUNIFOLD_OIDC_* configure it). Either way the token carries the operator id (`sub`), the
 * id of its operator_sessions row (`sid`) and the operator's session version (`sv`);
 * requireOperator re-reads role, memberships, disabled state, the session row and the version on
 * every request, so a still-valid JWT grants nothing after sign-out, "sign out everywhere", a
 * password change or a disable — whichever way it was signed in. Cookies: httpOnly, SameSite=Lax,
 * Secure behind https.
 */
export function buildAuthOptions(env: Env, deps: { sql: () => SqlHandle } = { sql: getSql }): NextAuthOptions {
  const sso = oidcSettings(env);
  // The user objects the signIn callback mapped to an operator: for SSO only these get a session,
  // so the identity provider's subject can never stand in for an operator id.
  const mapped = new WeakSet<object>();
  return {
    session: { strategy: "jwt", maxAge: MAX_AGE_SECONDS },
    useSecureCookies: secureCookies(env),
    // Errors come back to the login page as ?error=<code>, shown there in words (app/login/sign-in-errors.ts).
    pages: { signIn: "/login", error: "/login" },
    providers: [
      ...(env.RUNIFOLD_PASSWORD_SIGNIN === "on"
        ? [
            CredentialsProvider({
              name: "Email and password",
              credentials: {
                email: { label: "Email", type: "email" },
                password: { label: "Password", type: "password" },
              },
              async authorize(credentials, req) {
                const outcome = await authenticateOperator(deps.sql(), {
                  email: typeof credentials?.email === "string" ? credentials.email : "",
                  password: typeof credentials?.password === "string" ? credentials.password : "",
                  clientAddress: clientAddressFrom(req?.headers, parseTrustedProxies(env.RUNIFOLD_TRUSTED_PROXIES)),
                });
                if (outcome.ok) return outcome.operator;
                if (outcome.reason === "throttled") throw new Error(THROTTLED_ERROR);
                return null;
              },
            }),
          ]
        : []),
      ...(sso ? [oidcProvider(sso)] : []),
    ],
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.provider !== OIDC_PROVIDER_ID) return true;
        if (!sso || !profile) return `/login?error=${SSO_ERROR_PREFIX}no_email`;
        const outcome = await signInWithSso(deps.sql(), {
          settings: sso,
          claims: profile as SsoClaims,
          clientAddress: await requestClientAddress(env),
        });
        if (!outcome.ok) return `/login?error=${SSO_ERROR_PREFIX}${outcome.reason}`;
        // No adapter: this very object reaches the jwt callback as `user`, now naming the operator.
        Object.assign(user, { id: outcome.operator.id, email: outcome.operator.email, name: outcome.operator.name });
        mapped.add(user);
        return true;
      },
      async jwt({ token, user, account }) {
        if (user) {
          if (account?.provider === OIDC_PROVIDER_ID && !mapped.has(user))
            throw new Error("SSO user was not mapped to an operator");
          // A new sign-in: its own session row, and the version every later request must still match.
          const sql = deps.sql();
          const sessionId = randomBytes(18).toString("base64url");
          // A password sign-in of an operator with MFA starts with its second factor due (/login/mfa).
          const method = account?.provider === OIDC_PROVIDER_ID ? "sso" : "password";
          await insertOperatorSession(sql, {
            id: sessionId,
            operatorId: user.id,
            maxAgeMs: MAX_AGE_SECONDS * 1000,
            method,
            secondFactorPending: method === "password" && (user as { mfaEnabled?: boolean }).mfaEnabled === true,
          });
          const row = await findOperatorById(sql, user.id);
          token.sub = user.id;
          token.sid = sessionId;
          token.sv = row?.session_version ?? -1;
        }
        return token;
      },
      session({ session, token }) {
        session.operatorId = token.sub;
        session.sessionId = typeof token.sid === "string" ? token.sid : undefined;
        session.sessionVersion = typeof token.sv === "number" ? token.sv : undefined;
        return session;
      },
    },
    events: {
      // Sign-out ends this session in the store at once: a copied cookie is refused from now on.
      async signOut({ token }) {
        if (typeof token?.sid !== "string") return;
        await endOperatorSession(deps.sql(), token.sid);
        await recordSignInEvent(deps.sql(), { action: "auth.logout", operatorId: token.sub ?? null, address: null });
      },
    },
  };
}

export const authOptions: NextAuthOptions = buildAuthOptions(readEnv());

/** What this server's login page offers (the same env the options above were built from). */
export function currentSignInMethods(): SignInMethods {
  return signInMethods(readEnv());
}
