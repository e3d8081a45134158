import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestStack } from "../../scripts/lib/test-stack";
import { csrfSession, startBuiltStack } from "../helpers/built-stack";
import { makeOperator } from "../ui/helpers";

/**
 * Two-factor authentication through the real server (`next start` of the production build, issue
 * 33, ASVS 2.8): with RUNIFOLD_ADMIN_MFA=required (the default, no SSO configured) an admin signed in
 * with a password and no second factor is sent to enrolment by every console page; a password
 * sign-in of an enrolled operator reaches no page or API until its second step. The code checks
 * themselves are tests/security/mfa.test.ts and e2e/mfa.spec.ts.
 */
const PASSWORD = "mfa-http-test-password";
let stack: TestStack;
let sql: postgres.Sql;

beforeAll(async () => {
  // The test stacks default to optional (their suites sign admins in with a password alone).
  stack = await startBuiltStack("mfa_http", { RUNIFOLD_ADMIN_MFA: "required" });
  sql = postgres(stack.databaseUrl, { max: 2, onnotice: () => {} });
}, 240_000);

afterAll(async () => {
  await sql?.end();
  await stack?.stop();
}, 60_000);

/** A password sign-in as the login form posts it; returns the cookies a browser would then send. */
async function signIn(email: string): Promise<string> {
  const { csrfToken, cookie } = await csrfSession(stack.origin);
  const answer = await fetch(`${stack.origin}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ email, password: PASSWORD, csrfToken, json: "true" }),
    redirect: "manual",
  });
  const session = answer.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] as string)
    .find((pair) => pair.startsWith("next-auth.session-token="));
  expect(session, "a session cookie").toBeDefined();
  return `${cookie}; ${session}`;
}

const get = (path: string, cookie: string) => fetch(`${stack.origin}${path}`, { headers: { cookie }, redirect: "manual" });
const locationOf = (response: Response) => new URL(response.headers.get("location") ?? "/", stack.origin).pathname;

describe("MFA through the real server", { timeout: 60_000 }, () => {
  it("sends an admin without a second factor to enrolment from every console page", async () => {
    const admin = await makeOperator(sql, "admin", [], PASSWORD);
    const cookie = await signIn(admin.email);
    for (const page of ["/overview", "/tasks", "/tenants", "/routes"]) {
      const answer = await get(page, cookie);
      expect([303, 307], page).toContain(answer.status);
      expect(locationOf(answer), page).toBe("/account/mfa");
    }
    const enrol = await get("/account/mfa", cookie);
    expect(enrol.status).toBe(200);
    expect(await enrol.text()).toContain("Admins must set up two-factor authentication");
    // The console's API refuses too (no page to send it to).
    expect((await get("/api/ui/tasks", cookie)).status).toBe(403);
  });

  it("lets a password-only session of an enrolled operator reach nothing but the second step", async () => {
    const op = await makeOperator(sql, "operator", [], PASSWORD);
    // Enrolled (the sign-in only asks whether MFA is on; the code check is tested elsewhere).
    await sql`UPDATE operators SET mfa_secret_sealed = 'v1.sealed', mfa_enabled_at = now() WHERE id = ${op.id}`;
    const cookie = await signIn(op.email);
    for (const page of ["/overview", "/account/password", "/account/confirm", "/account/mfa"]) {
      const answer = await get(page, cookie);
      expect([303, 307], page).toContain(answer.status);
      expect(locationOf(answer), page).toBe("/login/mfa");
    }
    expect((await get("/api/ui/tasks", cookie)).status).toBe(401);
    // The sign-in page passes such a session on to the second step, keeping where it was going.
    const login = await get("/login?callbackUrl=%2Ftasks", cookie);
    expect(login.headers.get("location")).toContain("/login/mfa?callbackUrl=%2Ftasks");
    const step = await get("/login/mfa", cookie);
    expect(step.status).toBe(200);
    expect(await step.text()).toContain("Enter the 6-digit code");
  });

  it("answers hostile queries on the new pages without a 5xx, and never sends anyone off-site", async () => {
    const op = await makeOperator(sql, "operator", [], PASSWORD);
    await sql`UPDATE operators SET mfa_secret_sealed = 'v1.sealed', mfa_enabled_at = now() WHERE id = ${op.id}`;
    const pending = await signIn(op.email);
    const plain = await signIn((await makeOperator(sql, "operator", [], PASSWORD)).email);
    const hostile = [
      "//evil.example/x",
      "https://evil.example/",
      "/\\evil.example",
      "\u0000",
      "%00",
      "a".repeat(5_000),
      "<script>x</script>",
    ];
    for (const value of hostile) {
      for (const [path, cookie] of [
        ["/login/mfa", pending],
        ["/login/mfa", ""],
        ["/account/confirm", plain],
        ["/account/mfa", plain],
      ] as const) {
        const query = new URLSearchParams({ callbackUrl: value, error: value }).toString();
        const answer = await get(`${path}?${query}`, cookie);
        expect(answer.status, `${path} ${value.slice(0, 20)}`).toBeLessThan(500);
        const location = answer.headers.get("location");
        if (location) expect(new URL(location, stack.origin).origin).toBe(stack.origin);
        const body = await answer.text();
        expect(body).not.toContain("<script>x</script>");
      }
    }
  });
});
