import { describe, expect, it } from "vitest";
import { eligibility, expiryOutcome, normalizePolicy, type Person, parseDuration, tally } from "./policy";

const alice: Person = { id: "a", email: "Alice@Example.com", role: "operator", groups: ["finance"] };
const cto: Person = { id: "c", email: "cto@example.com", role: "operator", groups: ["cto"] };
const admin: Person = { id: "d", email: "root@example.com", role: "admin", groups: [] };
const open = { excluded: [] as string[], escalated: false, channel: "http" as const };

describe("the approval policy", () => {
  it("fills in the defaults: quorum 1, rejectQuorum 1, separation of duties on, the caller if eligible", () => {
    expect(normalizePolicy({ approvers: { groups: ["finance", "finance"] } })).toEqual({
      approvers: { roles: [], groups: ["finance"], operators: [] },
      quorum: 1,
      rejectQuorum: 1,
      separationOfDuties: true,
      expiresInMs: null,
      onExpire: null,
      escalate: null,
      remindEveryMs: null,
      caller: "if-eligible",
    });
  });

  it("reads durations and refuses policies that cannot work, naming the field", () => {
    expect(parseDuration("2h", "x")).toBe(7_200_000);
    expect(parseDuration("90s", "x")).toBe(90_000);
    expect(parseDuration(250, "x")).toBe(250);
    expect(() => parseDuration("soon", "policy.expiresIn")).toThrow(/policy.expiresIn/);
    expect(() => normalizePolicy({ approvers: {} })).toThrow(/names nobody/);
    expect(() => normalizePolicy({ approvers: { roles: ["admin"] }, quorum: 0 })).toThrow(/quorum/);
    expect(() => normalizePolicy({ approvers: { roles: ["admin"] }, onExpire: "approve" })).toThrow(/expiresIn/);
    expect(() => normalizePolicy({ approvers: { roles: ["admin"] }, caller: "always" })).toThrow(/caller/);
    // A reminder period under a minute would flood the approvers and wake the run as often.
    expect(normalizePolicy({ approvers: { roles: ["admin"] }, remind: { every: "1m" } }).remindEveryMs).toBe(60_000);
    expect(() => normalizePolicy({ approvers: { roles: ["admin"] }, remind: { every: "5s" } })).toThrow(
      /policy.remind.every must be at least 1m/,
    );
  });

  it("lets anyone named by role, group or email (any case) decide, and nobody else", () => {
    const policy = normalizePolicy({ approvers: { roles: ["admin"], groups: ["finance"], operators: ["CTO@example.com"] } });
    expect(eligibility(policy, alice, open).ok).toBe(true);
    expect(eligibility(policy, admin, open).ok).toBe(true);
    expect(eligibility(policy, cto, open).ok).toBe(true);
    const only = normalizePolicy({ approvers: { groups: ["finance"] } });
    expect(eligibility(only, cto, open)).toMatchObject({ ok: false, code: "not_an_approver" });
  });

  it("keeps the requester and the key's creator out unless separation of duties is off", () => {
    const policy = normalizePolicy({ approvers: { groups: ["finance"] } });
    expect(eligibility(policy, alice, { ...open, excluded: ["a"] })).toMatchObject({ ok: false, code: "separation_of_duties" });
    const relaxed = normalizePolicy({ approvers: { groups: ["finance"] }, separationOfDuties: false });
    expect(eligibility(relaxed, alice, { ...open, excluded: ["a"] }).ok).toBe(true);
  });

  it("lets the escalation's approvers in only once the escalation is due", () => {
    const policy = normalizePolicy({ approvers: { groups: ["finance"] }, escalate: { after: "2h", to: { groups: ["cto"] } } });
    expect(eligibility(policy, cto, open).ok).toBe(false);
    expect(eligibility(policy, cto, { ...open, escalated: true }).ok).toBe(true);
  });

  it("keeps the MCP caller out when caller is never", () => {
    const policy = normalizePolicy({ approvers: { groups: ["finance"] }, caller: "never" });
    expect(eligibility(policy, alice, { ...open, channel: "mcp" })).toMatchObject({ ok: false, code: "caller_excluded" });
    expect(eligibility(policy, alice, open).ok).toBe(true);
  });

  it("approves at the quorum, rejects at the reject quorum, rejection first", () => {
    const policy = normalizePolicy({ approvers: { groups: ["finance"] }, quorum: 2, rejectQuorum: 2 });
    expect(tally(policy, [{ decision: "approve" }])).toBeUndefined();
    expect(tally(policy, [{ decision: "approve" }, { decision: "approve" }])).toBe("approved");
    expect(tally(policy, [{ decision: "reject" }, { decision: "approve" }])).toBeUndefined();
    expect(
      tally(policy, [{ decision: "reject" }, { decision: "reject" }, { decision: "approve" }, { decision: "approve" }]),
    ).toBe("rejected");
    expect(tally(normalizePolicy({ approvers: { roles: ["admin"] } }), [{ decision: "reject" }])).toBe("rejected");
  });

  it("expires into onExpire's outcome, or expired when there is none", () => {
    expect(expiryOutcome(normalizePolicy({ approvers: { roles: ["admin"] }, expiresIn: "1h", onExpire: "approve" }))).toBe(
      "approved",
    );
    expect(expiryOutcome(normalizePolicy({ approvers: { roles: ["admin"] }, expiresIn: "1h", onExpire: "reject" }))).toBe(
      "rejected",
    );
    expect(expiryOutcome(normalizePolicy({ approvers: { roles: ["admin"] }, expiresIn: "1h" }))).toBe("expired");
  });
});
