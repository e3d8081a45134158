import "server-only";
import { getServerSession } from "next-auth";
import { headers } from "next/headers";
import { readEnv } from "../env";
import { getSql } from "../server/db";
import type { OperatorContext } from "./operator-context";
import { authOptions } from "./operator-auth";

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
