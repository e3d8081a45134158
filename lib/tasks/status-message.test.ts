import { describe, expect, it } from "vitest";
import { type DescribedRecord, statusMessageOf, utcTime } from "./status-message";

const NOW = new Date("2026-12-02T09:30:00.000Z");
const ASK = {
  method: "elicitation/create",
  params: { message: "Approve?", requestedSchema: { type: "object", properties: {} } },
} as const;
const record = (extra: Partial<DescribedRecord>): DescribedRecord => ({
  status: "leased",
  statusMessage: null,
  tenantSlug: "tenant-acme",
  waitDetail: null,
  progress: null,
  ...extra,
});

describe("statusMessageOf: what a task waits for, in words a model can relay", () => {
  it("names the question and whose operators may answer it", () => {
    const one = record({ status: "waiting_input", pendingInputs: { decision: ASK } });
    expect(statusMessageOf(one, NOW)).toBe("Waiting for an operator of tenant-acme to answer 'decision'");
    const three = record({ status: "waiting_input", pendingInputs: { a: ASK, b: ASK, c: ASK } });
    expect(statusMessageOf(three, NOW)).toBe("Waiting for an operator of tenant-acme to answer 'a', 'b' and 'c'");
  });

  it("says whose approval a run waits for, how far it is, and its clock", () => {
    const approval = record({
      status: "waiting_signal",
      waitDetail: {
        approval: {
          key: "ship",
          since: NOW.toISOString(),
          approvers: "group finance",
          quorum: 2,
          approved: 1,
          escalatesAt: "2026-12-02T14:00:00.000Z",
          deadline: "2026-12-03T09:30:00.000Z",
        },
      },
    });
    expect(statusMessageOf(approval, NOW)).toBe(
      "Waiting for approval 'ship': 1 of 2 from group finance; escalates at 14:00 UTC; expires at 2026-12-03 09:30 UTC",
    );
  });

  it("says until when a run sleeps, and which signal it waits for", () => {
    const sleeping = record({ status: "sleeping", waitDetail: { timer: { key: "settle", wakeAt: "2026-12-02T14:00:00.000Z" } } });
    expect(statusMessageOf(sleeping, NOW)).toBe("Sleeping until 14:00 UTC");
    const retry = record({
      status: "sleeping",
      waitDetail: { timer: { key: "retry:charge", wakeAt: "2026-12-02T09:30:05.000Z" } },
    });
    expect(statusMessageOf(retry, NOW)).toBe("Retrying step 'charge' at 09:30:05 UTC");
    const signal = record({
      status: "waiting_signal",
      waitDetail: { signal: { name: "window-open", since: NOW.toISOString() } },
    });
    expect(statusMessageOf(signal, NOW)).toBe("Waiting for signal 'window-open'");
    const bounded = record({
      status: "waiting_signal",
      waitDetail: { signal: { name: "window-open", since: NOW.toISOString(), deadline: "2026-12-03T08:00:00.000Z" } },
    });
    expect(statusMessageOf(bounded, NOW)).toBe("Waiting for signal 'window-open' (until 2026-12-03 08:00 UTC)");
  });

  it("uses the run's own progress line while it works, and the terminal cause once over", () => {
    expect(statusMessageOf(record({ progress: { progress: 1, message: "Gathered section 1 of 3" } }), NOW)).toBe(
      "Gathered section 1 of 3",
    );
    expect(statusMessageOf(record({}), NOW)).toBe("Running");
    expect(statusMessageOf(record({ status: "queued" }), NOW)).toBe("Queued for a worker");
    const stranded = "No online worker serves report@2; the run continues when one does";
    expect(statusMessageOf(record({ status: "queued", statusMessage: stranded }), NOW)).toBe(stranded);
    expect(
      statusMessageOf(
        record({ status: "failed", terminal: { error: { code: -32603, message: "Simulated protocol error" } } }),
        NOW,
      ),
    ).toBe("Simulated protocol error");
    expect(statusMessageOf(record({ status: "cancelled", statusMessage: "Cancelled by client" }), NOW)).toBe(
      "Cancelled by client",
    );
  });

  it("formats times in UTC with the date only when it is not today", () => {
    expect(utcTime(new Date("2026-12-02T14:00:00Z"), NOW)).toBe("14:00 UTC");
    expect(utcTime(new Date("2026-12-02T14:00:09Z"), NOW)).toBe("14:00:09 UTC");
    expect(utcTime(new Date("2027-01-01T00:00:00Z"), NOW)).toBe("2027-01-01 00:00 UTC");
  });
});
