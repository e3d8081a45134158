import { describe, expect, it } from "vitest";
import { matchRegisteredRedirectUri, redirectHostOf, redirectUriProblem } from "./redirect-uris";

describe("redirectUriProblem", () => {
  it.each([
    "https://app.example.com/cb",
    "http://127.0.0.1:8080/cb",
    "http://[::1]:8080/cb",
    "http://localhost/cb",
    "cursor://anysphere.cursor-retrieval/oauth/callback",
    "com.example.app:/oauth2redirect",
  ])("accepts %s", (uri) => expect(redirectUriProblem(uri)).toBeUndefined());

  it.each([
    ["http://app.example.com/cb", /loopback/],
    ["http://127.0.0.1.example.com/cb", /loopback/],
    ["https://app.example.com/cb#frag", /fragment/],
    ["https://app.example.com/cb#", /fragment/],
    ["javascript:alert(1)", /not allowed/],
    ["JAVASCRIPT:alert(1)", /not allowed/],
    ["file:///etc/passwd", /not allowed/],
    ["data:text/html,x", /not allowed/],
    ["relative/cb", /absolute/],
    ["https://u@app.example.com/cb", /user information/],
    [`https://app.example.com/${"a".repeat(2100)}`, /too long/],
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
  it("shows the host, or the scheme of a native-app URI", () => {
    expect(redirectHostOf("http://127.0.0.1:8080/cb")).toBe("127.0.0.1:8080");
    expect(redirectHostOf("cursor://anysphere.cursor-retrieval/cb")).toBe("anysphere.cursor-retrieval");
    expect(redirectHostOf("com.example.app:/cb")).toBe("com.example.app:");
  });
});
