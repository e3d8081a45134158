import "server-only";
import { headers } from "next/headers";
import { getServerSession } from "next-auth";
import { readEnv } from "../env";
import { getSql } from "../server/db";
import { authOptions } from "./operator-auth";
import type { OperatorContext } from "./operator-context";

/** The OperatorContext of the current Next request (page, route handler or server action). */
export function webContext(): OperatorContext {
  const env = readEnv();
  let cached: ReturnType<typeof getServerSession<typeof authOptions>> | undefined;
  // One decode of the session cookie per context (an action asks for the id and the claims).
  const session = () => {
    cached ??= getServerSession(authOptions);
    return cached;
  };
  return {
    sql: getSql(),
    async sessionOperatorId() {
      return (await session())?.operatorId ?? null;
    },
    async sessionClaims() {
      const current = await session();
      if (!current?.operatorId) return null;
      return { sessionId: current.sessionId ?? null, sessionVersion: current.sessionVersion ?? null };
    },
    async requestHeaders() {
      return new Headers(await headers());
    },
    adminMfaRequired: env.RUNIFOLD_ADMIN_MFA === "required",
    trustedOrigins: [env.RUNIFOLD_PUBLIC_URL, process.env.NEXTAUTH_URL, ...env.RUNIFOLD_ALLOWED_ORIGINS].filter(
      (origin): origin is string => Boolean(origin),
    ),
  };
}
