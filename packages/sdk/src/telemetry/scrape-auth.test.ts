import { describe, expect, it } from "vitest";
import { authorizeScrape, isLoopbackScrape } from "./scrape-auth";

const TOKEN = "metrics-token-0123456789";
const noHeaders = () => null;

describe("authorizeScrape", () => {
  it("with a token: only the exact Bearer token passes, from anywhere", () => {
    expect(authorizeScrape({ token: TOKEN, authorization: `Bearer ${TOKEN}`, fromLoopback: false })).toEqual({ ok: true });
    expect(authorizeScrape({ token: TOKEN, authorization: `bearer ${TOKEN}`, fromLoopback: false })).toEqual({ ok: true });
    for (const authorization of [null, "", `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN])
      expect(authorizeScrape({ token: TOKEN, authorization, fromLoopback: true })).toMatchObject({ ok: false, status: 401 });
  });

  it("without a token: loopback passes, anything else is 403", () => {
    expect(authorizeScrape({ token: undefined, authorization: null, fromLoopback: true })).toEqual({ ok: true });
    expect(authorizeScrape({ token: "", authorization: `Bearer x`, fromLoopback: false })).toMatchObject({
      ok: false,
      status: 403,
    });
  });
});

describe("isLoopbackScrape", () => {
  const headers = (values: Record<string, string>) => (name: string) => values[name] ?? null;

  it("needs a loopback peer and local address", () => {
    expect(isLoopbackScrape({ peer: "127.0.0.1", local: "127.0.0.1", header: noHeaders })).toBe(true);
    expect(isLoopbackScrape({ peer: "::ffff:127.0.0.1", local: "::ffff:127.0.0.1", header: noHeaders })).toBe(true);
    expect(isLoopbackScrape({ peer: "::1", local: "::1", header: noHeaders })).toBe(true);
    expect(isLoopbackScrape({ peer: undefined, local: undefined, header: noHeaders })).toBe(false);
    expect(isLoopbackScrape({ peer: "10.0.0.7", local: "10.0.0.1", header: noHeaders })).toBe(false);
  });

  it("refuses a loopback peer relaying someone else (a proxy on this host), however it says so", () => {
    const peer = { peer: "127.0.0.1", local: "127.0.0.1" };
    expect(isLoopbackScrape({ ...peer, header: headers({ "x-forwarded-for": "203.0.113.9" }) })).toBe(false);
    expect(isLoopbackScrape({ ...peer, header: headers({ "x-forwarded-for": "127.0.0.1, 203.0.113.9" }) })).toBe(false);
    expect(isLoopbackScrape({ ...peer, header: headers({ "x-real-ip": "198.51.100.2" }) })).toBe(false);
    expect(isLoopbackScrape({ ...peer, header: headers({ forwarded: 'for="[2001:db8::1]:4711";proto=https' }) })).toBe(false);
    expect(isLoopbackScrape({ ...peer, header: headers({ forwarded: "for=_hidden" }) })).toBe(false);
    // Next fills X-Forwarded-For in with the peer itself when a request has none: still loopback.
    expect(isLoopbackScrape({ ...peer, header: headers({ "x-forwarded-for": "127.0.0.1" }) })).toBe(true);
    expect(isLoopbackScrape({ ...peer, header: headers({ forwarded: "for=127.0.0.1:5000" }) })).toBe(true);
  });

  it("never admits a remote peer because of a header", () => {
    expect(
      isLoopbackScrape({ peer: "203.0.113.9", local: "10.0.0.1", header: headers({ "x-forwarded-for": "127.0.0.1" }) }),
    ).toBe(false);
  });
});
