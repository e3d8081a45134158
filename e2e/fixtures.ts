import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import postgres from "postgres";
import { resolveDatabaseUrl } from "../db/embedded/database-url";
import { createOperator } from "../db/queries/operators";
import { hashPassword } from "../lib/auth";

/**
 * A short-lived connection to the stack's database: `npm test` passes DATABASE_URL; a standalone
 * `npm run test:e2e` finds the embedded instance under .data/e2e.
 */
export async function withStackDatabase<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const url = resolveDatabaseUrl({
    DATABASE_URL: process.env.DATABASE_URL,
    RUNIFOLD_DATA_DIR: process.env.DATABASE_URL ? undefined : ".data/e2e",
  });
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end();
  }
}

/** The e2e run's own admin, written straight into the stack's database. */
export async function createAdmin(): Promise<{ email: string; password: string }> {
  return withStackDatabase(async (sql) => {
    const email = `e2e-${randomBytes(4).toString("hex")}@runifold.test`;
    const password = randomBytes(12).toString("base64url");
    await createOperator(sql, { email, passwordHash: await hashPassword(password), role: "admin", name: "E2E admin" });
    return { email, password };
  });
}

const SHOTS = "test-results/screenshots";

/** Saves a full-page screenshot of the main pages as a test artifact. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}
