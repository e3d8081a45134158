import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { requestStateClaims, signRequestState, verifyRequestState } from "./request-state";

// The store-backed half (the shared secret, consuming the nonce once) is covered over HTTP in
// tests/mcp/modern.test.ts ("refuses a replayed or forged requestState"); here, the pure half.
const secret = randomBytes(32);
const call = { tenantId: "t-1", keyId: "k-1", tool: "book_flight", args: { to: "LIS", seats: 2 } };
const NOW = Date.parse("2026-03-01T12:00:00Z");

describe("MRTR requestState", () => {
  it("verifies for the exact call it was issued for, until it expires ten minutes later", () => {
    const claims = requestStateClaims(call, NOW);
    const state = signRequestState(secret, claims);
    expect(verifyRequestState(secret, state, call, NOW)).toEqual(claims);
    expect(verifyRequestState(secret, state, call, NOW + 10 * 60_000 - 1)).toEqual(claims);
    expect(verifyRequestState(secret, state, call, NOW + 10 * 60_000)).toBeUndefined();
  });

  it("gives every state its own nonce", () => {
    const nonces = new Set(Array.from({ length: 50 }, () => requestStateClaims(call, NOW).n));
    expect(nonces.size).toBe(50);
  });

  it("refuses the state for any other tenant, key, tool or arguments", () => {
    const state = signRequestState(secret, requestStateClaims(call, NOW));
    for (const other of [
      { ...call, tenantId: "t-2" },
      { ...call, keyId: "k-2" },
      { ...call, tool: "cancel_flight" },
      { ...call, args: { to: "LIS", seats: 3 } },
      { ...call, args: {} },
    ])
      expect(verifyRequestState(secret, state, other, NOW), JSON.stringify(other)).toBeUndefined();
  });

  it("refuses anything not signed with the secret: another secret, an edited body, a bad MAC, garbage", () => {
    const claims = requestStateClaims(call, NOW);
    const state = signRequestState(secret, claims);
    const [, mac] = state.split(".");
    const forgedBody = Buffer.from(JSON.stringify({ ...claims, exp: NOW + 3_600_000 })).toString("base64url");
    for (const forged of [
      signRequestState(randomBytes(32), claims),
      `${forgedBody}.${mac}`,
      `${state}x`,
      state.replace(".", ""),
      `.${mac}`,
      "",
      "a.b",
      `${"a".repeat(2_000)}.${mac}`,
      42,
      null,
      undefined,
    ])
      expect(verifyRequestState(secret, forged, call, NOW), String(forged).slice(0, 40)).toBeUndefined();
  });
});
