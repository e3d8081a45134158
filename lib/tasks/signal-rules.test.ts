import { describe, expect, it } from "vitest";
import { isSignalName, SIGNAL_PAYLOAD_MAX_DEPTH, unstorablePayloadReason } from "./signal-rules";

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

describe("signal rules", () => {
  it("names: 1–128 of letters, digits and _ . : -", () => {
    for (const name of ["a", "approved", "order.paid:v2", "A_b-9", "x".repeat(128)]) expect(isSignalName(name), name).toBe(true);
    for (const name of ["", "x".repeat(129), "has space", "a/b", "é", "a\n", "%41"]) expect(isSignalName(name), name).toBe(false);
  });

  it("payloads: what jsonb can hold, nested at most SIGNAL_PAYLOAD_MAX_DEPTH deep", () => {
    for (const payload of [null, 1, "text 😀", { a: [1, { b: "c" }] }, nested(SIGNAL_PAYLOAD_MAX_DEPTH)]) {
      expect(unstorablePayloadReason(payload)).toBeUndefined();
    }
    expect(unstorablePayloadReason({ text: "a\u0000b" })).toMatch(/U\+0000/);
    expect(unstorablePayloadReason({ "k\u0000": 1 })).toMatch(/keys/);
    expect(unstorablePayloadReason(["\ud800"])).toMatch(/surrogates/);
    expect(unstorablePayloadReason(nested(SIGNAL_PAYLOAD_MAX_DEPTH + 1))).toMatch(/deeper than 64/);
    // Iterative: a hostile depth is refused, not a stack overflow.
    expect(unstorablePayloadReason(nested(200_000))).toMatch(/deeper/);
  });
});
