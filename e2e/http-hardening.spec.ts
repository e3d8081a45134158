import { expect, test } from "@playwright/test";

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
  expect(response.headers()["x-frame-options"]).toBe("DENY");
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
