import "server-only";
import { randomBytes } from "node:crypto";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { endOperatorSession, findOperatorById, insertOperatorSession } from "../../db/queries/operators";
import { readEnv } from "../env";
import { getSql } from "../server/db";
import { authenticateOperator } from "./authenticate-operator";
import { clientAddressFrom, parseTrustedProxies } from "./client-address";
import { recordSignInEvent } from "./sign-in-audit";

declare module "next-auth" {
  interface Session {
    operatorId?: string;
    sessionId?: string;
    sessionVersion?: number;
  }
}

/** Thrown by authorize() for a locked sign-in; the login page shows "try again later". */
export const THROTTLED_ERROR = "throttled";

const MAX_AGE_SECONDS = 12 * 60 * 60;

/** Secure cookies (the __Secure- prefix) whenever the console is reached over https (ASVS 3.4.1). */
function secureCookies(): boolean {
  const env = readEnv();
  const url = process.env.NEXTAUTH_URL ?? env.RUNIFOLD_PUBLIC_URL ?? "";
  return url.startsWith("https://");
}

/**
 * next-auth v4: Credentials + JWT sessions. The token carries the operator id (`sub`), the id of
 * its operator_sessions row (`sid`) and the operator's session version (`sv`); requireOperator
 * re-reads role, memberships, disabled state, the session row and the version on every request, so
 * a still-valid JWT grants nothing after sign-out, "sign out everywhere", a password change or a
 * disable. Cookies: httpOnly, SameSite=Lax, Secure behind https.
 */
export const authOptions: NextAuthOptions = {
  session: { strategy: "jwt", maxAge: MAX_AGE_SECONDS },
  useSecureCookies: secureCookies(),
  pages: { signIn: "/login", error: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email and password",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
      },
      async authorize(credentials, req) {
        const outcome = await authenticateOperator(getSql(), {
          email: typeof credentials?.email === "string" ? credentials.email : "",
          password: typeof credentials?.password === "string" ? credentials.password : "",
          clientAddress: clientAddressFrom(req?.headers, parseTrustedProxies(readEnv().RUNIFOLD_TRUSTED_PROXIES)),
        });
        if (outcome.ok) return outcome.operator;
        if (outcome.reason === "throttled") throw new Error(THROTTLED_ERROR);
        return null;
      },
    }),
  ],
  callbacks: {
    async jwt({ token, user }) {
      if (user) {
        // A new sign-in: its own session row, and the version every later request must still match.
        const sql = getSql();
        const sessionId = randomBytes(18).toString("base64url");
        await insertOperatorSession(sql, { id: sessionId, operatorId: user.id, maxAgeMs: MAX_AGE_SECONDS * 1000 });
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
      await endOperatorSession(getSql(), token.sid);
      await recordSignInEvent(getSql(), { action: "auth.logout", operatorId: token.sub ?? null, address: null });
    },
  },
};
