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
  return {
    sql: getSql(),
    async sessionOperatorId() {
      const session = await getServerSession(authOptions);
      return session?.operatorId ?? null;
    },
    async requestHeaders() {
      return new Headers(await headers());
    },
    trustedOrigins: [env.RUNIFOLD_PUBLIC_URL, process.env.NEXTAUTH_URL, ...env.RUNIFOLD_ALLOWED_ORIGINS].filter(
      (origin): origin is string => Boolean(origin),
    ),
  };
}
