import { expect, type Page, test } from "@playwright/test";
import { createAdmin } from "./fixtures";
import { LoginPage } from "./pages/login-page";

// What the real Next server sends and refuses at the HTTP layer (docs/security.md, ASVS 13.1 and 14.4).

test("pages carry the security headers: CSP frame-ancestors, X-Frame-Options, nosniff, Referrer-Policy", async ({ request }) => {
  for (const path of ["/", "/login"]) {
    const response = await request.get(path);
    expect(response.status()).toBe(200);
    const headers = response.headers();
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["content-security-policy"]).toContain("form-action 'self'");
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(headers["x-powered-by"]).toBeUndefined();
  }
});

test("the OAuth consent page drops only form-action (its form redirects to the client), keeping frame-ancestors", async ({
  request,
}) => {
  const response = await request.get("/oauth/authorize?client_id=x", { maxRedirects: 0 });
  const csp = response.headers()["content-security-policy"] ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("form-action");
  expect(scriptSrc(csp)).toMatch(/'nonce-[A-Za-z0-9+/=]{16,}'/);
  expect(response.headers()["x-frame-options"]).toBe("DENY");
});

/** The script-src directive of a CSP ("" when there is none). */
function scriptSrc(csp: string | undefined): string {
  return (
    (csp ?? "")
      .split(";")
      .map((directive) => directive.trim())
      .find((directive) => directive.startsWith("script-src ")) ?? ""
  );
}

function nonceOf(csp: string | undefined): string {
  const nonce = /'nonce-([^']+)'/.exec(scriptSrc(csp))?.[1];
  if (!nonce) throw new Error(`no nonce in script-src: ${csp}`);
  return nonce;
}

test("pages allow only scripts with a per-request nonce: new on every response, on every script Next renders (ASVS 14.4.3)", async ({
  request,
}) => {
  for (const path of ["/", "/login"]) {
    const [first, second] = [await request.get(path), await request.get(path)];
    const csp = first.headers()["content-security-policy"];
    expect(scriptSrc(csp)).toMatch(/^script-src 'self' 'nonce-[A-Za-z0-9+/=]{16,}' 'strict-dynamic'$/);
    expect(scriptSrc(csp)).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(nonceOf(second.headers()["content-security-policy"])).not.toBe(nonceOf(csp));
    // Next puts the request's nonce on each script it renders (it reads it from the CSP proxy.ts sets).
    const scripts = (await first.text()).match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonceOf(csp)}"`);
  }
  // API answers keep the static policy (next.config.ts): no nonce, still no framing.
  const api = (await request.get("/api/health")).headers()["content-security-policy"];
  expect(api).toContain("frame-ancestors 'none'");
  expect(api).not.toContain("nonce-");
});

/** CSP violations Chromium reports on the console while `run` goes on. */
async function cspViolationsDuring(page: Page, run: () => Promise<void>): Promise<string[]> {
  const violations: string[] = [];
  const listener = (message: { text(): string }) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  };
  page.on("console", listener);
  try {
    await run();
  } finally {
    page.off("console", listener);
  }
  return violations;
}

test("the login page and the console still hydrate under the CSP: the form signs in by script, links navigate client-side", async ({
  page,
}) => {
  const admin = await createAdmin();
  const violations = await cspViolationsDuring(page, async () => {
    // A wrong password answered in place: only the hydrated form (signIn by fetch) shows this alert.
    await page.goto("/login");
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Invalid email or password." })).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);
    await new LoginPage(page).signIn(admin.email, admin.password);
    // A client-side navigation keeps the window (a full load would not): Link is live, chunks load.
    await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "Tasks" }).click();
    await expect(page).toHaveURL(/\/tasks$/);
    await expect(nav.getByRole("link", { name: "Tasks" })).toHaveAttribute("aria-current", "page");
    expect(await page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  });
  expect(violations).toEqual([]);
});

/**
 * Markup injected into the served page, as a stored or reflected XSS would put it there: the HTML is
 * the server's (its CSP header untouched) plus the injection. A script added through the DOM from
 * the test (page.addScriptTag, createElement) would not do: 'strict-dynamic' trusts scripts that
 * running scripts insert, since only trusted scripts can run, and DevTools-evaluated code breaks
 * that assumption.
 */
test("an injected inline script or event handler without the nonce does not run; one with the nonce does", async ({ page }) => {
  await page.route("**/login", async (route) => {
    const served = await route.fetch();
    const nonce = nonceOf(served.headers()["content-security-policy"]);
    const injected = [
      "<script>window.__withoutNonce = true</script>",
      `<img src="data:," alt="" onload="window.__viaHandler = true">`,
      `<script nonce="${nonce}">window.__withNonce = true</script>`,
    ].join("");
    await route.fulfill({ response: served, body: (await served.text()).replace("<body", `${injected}<body`) });
  });
  const violations = await cspViolationsDuring(page, async () => {
    await page.goto("/login");
    await expect(page.getByLabel("Email")).toBeVisible();
  });
  const ran = await page.evaluate(() => {
    const flags = window as { __withoutNonce?: boolean; __viaHandler?: boolean; __withNonce?: boolean };
    return { withoutNonce: !!flags.__withoutNonce, viaHandler: !!flags.__viaHandler, withNonce: !!flags.__withNonce };
  });
  expect(ran).toEqual({ withoutNonce: false, viaHandler: false, withNonce: true });
  // Chromium reports each refusal: the inline script and the inline event handler.
  expect(violations.filter((text) => /inline script/i.test(text)).length).toBe(1);
  expect(violations.filter((text) => /inline event handler/i.test(text)).length).toBe(1);
});

test("an oversized body to the unauthenticated sign-in endpoint is refused with 413 before next-auth reads it", async ({
  request,
}) => {
  const huge = `email=a%40b.c&password=${"x".repeat(1_048_576)}`;
  const refused = await request.post("/api/auth/callback/credentials", {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    data: huge,
    maxRedirects: 0,
  });
  expect(refused.status()).toBe(413);
  // A normal-sized sign-in attempt still reaches next-auth (which answers with its own redirect or error, never 413).
  const csrf = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const normal = await request.post("/api/auth/callback/credentials", {
    form: { email: "nobody@example.com", password: "wrong-password", csrfToken: csrf.csrfToken, json: "true" },
    maxRedirects: 0,
  });
  expect(normal.status()).not.toBe(413);
  expect(normal.status()).toBeLessThan(500);
});

test("MCP answers are not gzipped by the server even when the client accepts gzip (no-transform: a zlib stream per small answer costs more than it saves)", async ({
  request,
}) => {
  const response = await request.post("/api/mcp", {
    headers: { "accept-encoding": "gzip, deflate", "content-type": "application/json", accept: "application/json" },
    data: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  });
  // Unauthenticated: a JSON answer all the same, through the same response helper as every MCP answer.
  expect(response.status()).toBe(401);
  expect(response.headers()["cache-control"]).toBe("no-store, no-transform");
  expect(response.headers()["content-encoding"]).toBeUndefined();
  // Pages still are (the control: the server compresses what may be transformed).
  const page = await request.get("/login", { headers: { "accept-encoding": "gzip" } });
  expect(page.headers()["content-encoding"]).toBe("gzip");
});
