import { describe, expect, it } from "vitest";
import { matchRegisteredRedirectUri, redirectHostOf, redirectUriProblem } from "./redirect-uris";

describe("redirectUriProblem", () => {
  it.each(["https://app.example.com/cb", "http://127.0.0.1:8080/cb", "http://[::1]:8080/cb", "http://localhost/cb"])(
    "accepts %s",
    (uri) => expect(redirectUriProblem(uri)).toBeUndefined(),
  );

  it.each([
    ["http://app.example.com/cb", /loopback/],
    ["http://127.0.0.1.example.com/cb", /loopback/],
    ["https://app.example.com/cb#frag", /fragment/],
    ["https://app.example.com/cb#", /fragment/],
    ["javascript:alert(1)", /https or http on a loopback host/],
    ["JAVASCRIPT:alert(1)", /https or http on a loopback host/],
    ["file:///etc/passwd", /https or http on a loopback host/],
    ["data:text/html,x", /https or http on a loopback host/],
    ["relative/cb", /absolute/],
    ["https://u@app.example.com/cb", /user information/],
    [`https://app.example.com/${"a".repeat(2100)}`, /too long/],
    // The MCP authorization spec: redirect URIs are localhost URLs or HTTPS URLs (issue 33).
    ["cursor://anysphere.cursor-retrieval/oauth/callback", /https or http on a loopback host/],
    ["com.example.app:/oauth2redirect", /https or http on a loopback host/],
  ])("refuses %s", (uri, problem) => expect(redirectUriProblem(uri)).toMatch(problem));
});

describe("matchRegisteredRedirectUri", () => {
  const registered = ["http://127.0.0.1:3000/callback", "http://localhost/cb", "https://app.example.com/cb?x=1"];

  it("matches exactly, and loopback URIs on any port", () => {
    expect(matchRegisteredRedirectUri(registered, "https://app.example.com/cb?x=1")).toBe(true);
    expect(matchRegisteredRedirectUri(registered, "http://127.0.0.1:3000/callback")).toBe(true);
    expect(matchRegisteredRedirectUri(registered, "http://127.0.0.1:49152/callback")).toBe(true);
    expect(matchRegisteredRedirectUri(registered, "http://127.0.0.1/callback")).toBe(true);
    expect(matchRegisteredRedirectUri(registered, "http://localhost:5555/cb")).toBe(true);
  });

  it("refuses anything else: other paths, hosts, schemes, queries, or port variance off loopback", () => {
    expect(matchRegisteredRedirectUri(registered, "https://app.example.com/cb")).toBe(false);
    expect(matchRegisteredRedirectUri(registered, "https://app.example.com:8443/cb?x=1")).toBe(false);
    expect(matchRegisteredRedirectUri(registered, "http://127.0.0.1:3000/callback/")).toBe(false);
    expect(matchRegisteredRedirectUri(registered, "http://127.0.0.2:3000/callback")).toBe(false);
    expect(matchRegisteredRedirectUri(registered, "https://127.0.0.1:3000/callback")).toBe(false);
    expect(matchRegisteredRedirectUri(registered, "http://localhost:3000/callback")).toBe(false);
    expect(matchRegisteredRedirectUri(registered, "http://127.0.0.1:3000/callback?extra=1")).toBe(false);
  });
});

describe("redirectHostOf", () => {
  it("shows the host", () => {
    expect(redirectHostOf("http://127.0.0.1:8080/cb")).toBe("127.0.0.1:8080");
    expect(redirectHostOf("https://client.example.com/cb?x=1")).toBe("client.example.com");
  });
});
