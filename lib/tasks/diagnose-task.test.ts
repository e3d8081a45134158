import { describe, expect, it } from "vitest";
import { type DiagnosisInput, diagnoseTask, formatDuration } from "./diagnose-task";

const now = new Date("2026-11-20T14:00:00Z");
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const base: DiagnosisInput = {
  status: "queued",
  workflowKey: "generate-report@1",
  createdAt: minutesAgo(4),
  updatedAt: minutesAgo(4),
};
const worker = { id: "w-1", workflows: ["generate-report@1", "approve-expense@1"] };
const utc = { timeZone: "UTC" };

describe("diagnoseTask", () => {
  it("queued with no online worker serving the version", () => {
    const d = diagnoseTask(base, [{ id: "w-2", workflows: ["generate-report@2"] }], now, utc);
    expect(d).toMatchObject({
      code: "queued_no_worker",
      tone: "error",
      headline: "queued 4 min: no online worker serves generate-report@1",
    });
  });

  it("queued with a worker online: informational, then a warning when it lingers", () => {
    expect(diagnoseTask({ ...base, updatedAt: new Date(now.getTime() - 2_000) }, [worker], now).tone).toBe("info");
    const slow = diagnoseTask(base, [worker], now);
    expect(slow.tone).toBe("warn");
    expect(slow.headline).toContain("1 online worker serves generate-report@1");
  });

  it("queued behind a full concurrency key: says so, even with no worker serving and however long it waits", () => {
    const d = diagnoseTask({ ...base, waitDetail: { concurrency: { key: "api", limit: 1 } } }, [], now);
    expect(d).toMatchObject({
      code: "queued",
      tone: "info",
      headline: "queued 4 min: waiting for a free slot of concurrency key 'api' (limit 1)",
    });
  });

  it("sleeping until the timer's wake time, in the given zone", () => {
    const d = diagnoseTask(
      { ...base, status: "sleeping", waitDetail: { timer: { key: "settle", wakeAt: "2026-11-20T14:05:00Z" } } },
      [worker],
      now,
      utc,
    );
    expect(d.headline).toBe("sleeping until 14:05");
  });

  it("a sleeping run whose timer is overdue and no worker serves it", () => {
    const d = diagnoseTask(
      { ...base, status: "sleeping", waitDetail: { timer: { key: "settle", wakeAt: "2026-11-20T13:50:00Z" } } },
      [],
      now,
      utc,
    );
    expect(d).toMatchObject({ code: "timer_due", tone: "error" });
    expect(d.notes.join()).toContain("no online worker serves generate-report@1");
  });

  it("waiting for a signal, with its deadline", () => {
    const d = diagnoseTask(
      {
        ...base,
        status: "waiting_signal",
        waitDetail: { signal: { name: "ready", since: minutesAgo(3).toISOString(), deadline: "2026-11-20T15:00:00Z" } },
      },
      [worker],
      now,
      utc,
    );
    expect(d.headline).toBe("waiting for signal `ready` since 13:57 (3 min)");
    expect(d.notes).toContain("gives up waiting at 15:00");
  });

  it("waiting for input names the outstanding keys", () => {
    const waitDetail = { input: { keys: ["decision", "comment"], since: minutesAgo(2).toISOString() } };
    const d = diagnoseTask({ ...base, status: "waiting_input", waitDetail, pendingInputKeys: ["decision"] }, [worker], now, utc);
    expect(d.headline).toBe("waiting for input `decision` since 13:58 (2 min)");
    expect(diagnoseTask({ ...base, status: "waiting_input", pendingInputKeys: [] }, [worker], now).code).toBe("resuming");
  });

  it("leased: who holds it and when the lease ends", () => {
    const leased = { ...base, status: "leased" as const, leaseOwner: "w-1", leaseExpiresAt: new Date(now.getTime() + 12_000) };
    expect(diagnoseTask(leased, [worker], now).headline).toBe("leased by worker w-1, lease expires in 12 s");
    const expired = diagnoseTask(
      { ...leased, leaseOwner: "w-9", leaseExpiresAt: new Date(now.getTime() - 5_000) },
      [worker],
      now,
    );
    expect(expired).toMatchObject({ code: "lease_expired", tone: "warn" });
    expect(expired.headline).toContain("lease expired 5 s ago");
    expect(expired.notes).toContain("worker w-9 is not online (no recent heartbeat)");
  });

  it("an expired handle on an active run is called out", () => {
    const d = diagnoseTask({ ...base, status: "sleeping", handleExpired: true }, [worker], now);
    expect(d.notes).toContain("handle expired; run still active");
  });

  it("terminal states say how they ended", () => {
    const done = { ...base, finishedAt: minutesAgo(3) };
    expect(diagnoseTask({ ...done, status: "completed" }, [], now).headline).toBe("completed in 1 min");
    const rejected = diagnoseTask(
      {
        ...done,
        status: "completed",
        terminal: { result: { isError: true, content: [{ type: "text", text: "Expense E-1 rejected." }] } },
      },
      [],
      now,
    );
    expect(rejected).toMatchObject({
      code: "completed_with_error",
      headline: "completed with a tool error after 1 min: Expense E-1 rejected.",
    });
    expect(diagnoseTask({ ...done, status: "failed", terminal: { error: { message: "boom" } } }, [], now).headline).toBe(
      "failed: boom",
    );
    expect(diagnoseTask({ ...done, status: "cancelled", terminal: { reason: "Cancelled by operator" } }, [], now).headline).toBe(
      "cancelled: Cancelled by operator",
    );
  });
});

describe("formatDuration", () => {
  it("is coarse and readable", () => {
    expect([0, 12_000, 240_000, 7_500_000, 100_000_000].map(formatDuration)).toEqual([
      "0 s",
      "12 s",
      "4 min",
      "2 h 5 min",
      "1 d 3 h",
    ]);
  });

  it("leads a failed task with its stored cause, and keeps what clients see as a note", () => {
    const failed: DiagnosisInput = {
      ...base,
      status: "failed",
      finishedAt: now,
      terminal: { error: { message: "Workflow generate-report@1 failed" } },
    };
    expect(diagnoseTask(failed, [worker], now).headline).toBe("failed: Workflow generate-report@1 failed");
    const d = diagnoseTask(
      {
        ...failed,
        failureCause: { code: "nondeterminism", name: "NonDeterminism", step: "charge", message: "step order changed" },
      },
      [worker],
      now,
    );
    expect(d.headline).toBe("failed (nondeterminism) in step `charge`: NonDeterminism: step order changed");
    expect(d.notes).toContain("clients see: Workflow generate-report@1 failed");
  });
});
