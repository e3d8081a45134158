import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import postgres from "postgres";
import { createOperator } from "../db/queries/operators";
import { hashPassword } from "../lib/auth";

/** A short-lived connection to the stack's database (DATABASE_URL, set by e2e/global-setup.ts). */
export async function withStackDatabase<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: e2e/global-setup.ts sets it for the stack it starts");
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
