import { describe, expect, it } from "vitest";
import { SSO_REFUSALS } from "@/lib/auth";
import { signInErrorMessage } from "./sign-in-errors";

describe("the login page's error messages", () => {
  it("has its own message for every SSO refusal, naming the identity provider where it matters", () => {
    const messages = SSO_REFUSALS.map((reason) => signInErrorMessage(`sso_${reason}`, "Okta"));
    expect(new Set(messages).size).toBe(SSO_REFUSALS.length);
    expect(messages).not.toContain(signInErrorMessage("anything-else", "Okta"));
    expect(signInErrorMessage("sso_unknown", "Okta")).toMatch(/^Your Okta account is not a Runifold operator/);
  });

  it("puts next-auth's codes into words, and falls back to a plain message for an unknown one", () => {
    expect(signInErrorMessage("OAuthCallback", "Okta")).toBe("Signing in with Okta did not complete. Try again.");
    expect(signInErrorMessage("toString", "Okta")).toBe("Sign-in failed. Try again.");
    expect(signInErrorMessage("sso_constructor", "Okta")).toBe("Sign-in failed. Try again.");
    expect(signInErrorMessage(null, "Okta")).toBeNull();
  });
});
