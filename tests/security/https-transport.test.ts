import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestStack } from "../../scripts/lib/test-stack";
import { csrfSession, startBuiltStack } from "../helpers/built-stack";
import { makeOperator } from "../ui/helpers";

/**
 * HSTS and Secure cookies (ASVS 14.4.5, 3.4.1) from the real production server: `next start` of the
 * ordinary build, through the helper every suite uses, once with an https public URL and once with
 * plain http. Both runs serve the same build, so a header decided when `next build` ran (as
 * next.config.ts `headers()` is) could not pass both. The server itself listens on plain http on
 * loopback, as it does behind a TLS-terminating proxy; only its public URL differs.
 */
const PASSWORD = "transport-test-password";

type Started = { stack: TestStack; email: string };
const stacks: TestStack[] = [];

async function startWithPublicUrl(label: string, scheme: "https" | "http"): Promise<Started> {
  const publicUrl = `${scheme}://runifold.test`;
  const stack = await startBuiltStack(label, { RUNIFOLD_PUBLIC_URL: publicUrl, NEXTAUTH_URL: publicUrl });
  stacks.push(stack);
  const sql = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    return { stack, email: (await makeOperator(sql, "admin", [], PASSWORD)).email };
  } finally {
    await sql.end();
  }
}

/** A password sign-in as the login form makes it; returns the Set-Cookie lines of the answer. */
async function signIn({ stack, email }: Started): Promise<string[]> {
  const { csrfToken, cookie } = await csrfSession(stack.origin);
  const answer = await fetch(`${stack.origin}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ email, password: PASSWORD, csrfToken, json: "true" }),
    redirect: "manual",
  });
  return answer.headers.getSetCookie();
}

const sessionCookie = (lines: string[]) => lines.find((line) => /^(__Secure-)?next-auth\.session-token=/.test(line));

let https: Started;
let http: Started;

beforeAll(async () => {
  // One after the other: each `next start` is a busy minute on two cores.
  https = await startWithPublicUrl("https_transport", "https");
  http = await startWithPublicUrl("http_transport", "http");
}, 360_000);

afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.stop()));
}, 60_000);

describe("transport security follows the server's public URL (ASVS 14.4.5, 3.4.1)", { timeout: 60_000 }, () => {
  it("sends HSTS on pages when the public URL is https, decided at run time", async () => {
    // /login without its CSRF cookie first sends the browser to /login/csrf (which sets it): a 307.
    for (const [page, status] of [
      ["/", 200],
      ["/login", 307],
    ] as const) {
      const response = await fetch(`${https.stack.origin}${page}`, { redirect: "manual" });
      expect(response.status, page).toBe(status);
      expect(response.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    }
    // The sign-in redirect of a console page too: the header is on every page answer, not only on 200s.
    const redirect = await fetch(`${https.stack.origin}/overview`, { redirect: "manual" });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
  });

  it("sends no HSTS over a plain-http public URL (it would lock a local browser out of the server)", async () => {
    for (const [page, status] of [
      ["/", 200],
      ["/login", 307],
      ["/api/health", 200],
    ] as const) {
      const response = await fetch(`${http.stack.origin}${page}`, { redirect: "manual" });
      expect(response.status, page).toBe(status);
      expect(response.headers.get("strict-transport-security")).toBeNull();
    }
  });

  it("sets the session cookie __Secure-, Secure, HttpOnly and SameSite=Lax behind https", async () => {
    const cookie = sessionCookie(await signIn(https));
    expect(cookie).toMatch(/^__Secure-next-auth\.session-token=[^;]+;/);
    expect(cookie).toMatch(/;\s*Secure(;|$)/i);
    expect(cookie).toMatch(/;\s*HttpOnly(;|$)/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax(;|$)/i);
  });

  it("sets a plain session cookie over http, where a Secure one would never be sent back", async () => {
    const cookie = sessionCookie(await signIn(http));
    expect(cookie).toMatch(/^next-auth\.session-token=[^;]+;/);
    expect(cookie).not.toMatch(/;\s*Secure(;|$)/i);
    expect(cookie).toMatch(/;\s*HttpOnly(;|$)/i);
  });
});
