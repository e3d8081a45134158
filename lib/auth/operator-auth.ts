import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getSql } from "../server/db";
import { authenticateOperator, clientAddressFrom } from "./authenticate-operator";

declare module "next-auth" {
  interface Session {
    operatorId?: string;
  }
}

/** Thrown by authorize() for a locked sign-in; the login page shows "try again later". */
export const THROTTLED_ERROR = "throttled";

/**
 * next-auth v4: Credentials + JWT sessions. The token carries only the operator id (`sub`); role,
 * memberships and disabled state are re-read on every request by requireOperator(), so a JWT that
 * is still valid grants nothing to a disabled or demoted operator. Cookies are next-auth's
 * defaults: httpOnly, SameSite=Lax, and Secure (with the __Secure- prefix) when NEXTAUTH_URL is https.
 */
export const authOptions: NextAuthOptions = {
  session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
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
          email: String(credentials?.email ?? ""),
          password: String(credentials?.password ?? ""),
          clientAddress: clientAddressFrom(req?.headers),
        });
        if (outcome.ok) return outcome.operator;
        if (outcome.reason === "throttled") throw new Error(THROTTLED_ERROR);
        return null;
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) token.sub = user.id;
      return token;
    },
    session({ session, token }) {
      session.operatorId = token.sub;
      return session;
    },
  },
};
