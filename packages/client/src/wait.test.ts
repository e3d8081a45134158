import { describe, expect, it } from "vitest";
import type { EraDriver } from "./driver";
import type { PollPolicy, TaskView } from "./types";
import { pollDelay, sleep, waitForTask } from "./wait";

const policy: PollPolicy = { minMs: 100, maxMs: 5_000, defaultMs: 1_000 };
const NOW = Date.parse("2026-01-01T00:00:10Z");
const task = (fields: Partial<TaskView> = {}): TaskView => ({
  taskId: "t",
  status: "working",
  createdAt: "2026-01-01T00:00:00Z",
  lastUpdatedAt: "2026-01-01T00:00:00Z",
  ttlMs: null,
  era: "modern",
  wireStatus: "working",
  ...fields,
});

describe("pollDelay", () => {
  it("follows the server's interval within the client's bounds", () => {
    expect(pollDelay(task({ pollIntervalMs: 2_000 }), policy, undefined, NOW)).toBe(2_000);
    expect(pollDelay(task(), policy, undefined, NOW)).toBe(1_000);
    expect(pollDelay(task({ pollIntervalMs: 10 }), policy, undefined, NOW)).toBe(100);
    expect(pollDelay(task({ pollIntervalMs: 60_000 }), policy, undefined, NOW)).toBe(5_000);
  });

  it("never sleeps past the wait's deadline", () => {
    expect(pollDelay(task({ pollIntervalMs: 2_000 }), policy, NOW + 300, NOW)).toBe(300);
    expect(pollDelay(task({ pollIntervalMs: 2_000 }), policy, NOW - 50, NOW)).toBe(0);
  });

  it("never sleeps past the handle's expiry, but polls no faster than the minimum for it", () => {
    expect(pollDelay(task({ pollIntervalMs: 2_000, ttlMs: 10_500 }), policy, undefined, NOW)).toBe(500);
    expect(pollDelay(task({ pollIntervalMs: 2_000, ttlMs: 10_010 }), policy, undefined, NOW)).toBe(100);
    expect(pollDelay(task({ pollIntervalMs: 2_000, ttlMs: 60_000, createdAt: "not a date" }), policy, undefined, NOW)).toBe(
      2_000,
    );
  });
});

describe("sleep", () => {
  it("rejects at once with the reason when already aborted, and on abort while sleeping", async () => {
    await expect(sleep(10, AbortSignal.abort(new Error("stop")))).rejects.toThrow("stop");
    const controller = new AbortController();
    const sleeping = sleep(60_000, controller.signal);
    controller.abort(new Error("later"));
    await expect(sleeping).rejects.toThrow("later");
  });
});

/** An in-memory era driver that serves a scripted sequence of task views (the last one repeats). */
function scripted(views: TaskView[], answer: Awaited<ReturnType<EraDriver["answerInput"]>> = undefined) {
  let reads = 0;
  const driver = {
    era: "modern",
    protocolVersion: "2026-07-28",
    tasksAvailable: true,
    getTask: async () => views[Math.min(reads++, views.length - 1)] as TaskView,
    answerInput: async () => answer,
  } as unknown as EraDriver;
  return { driver, reads: () => reads };
}

const fast: PollPolicy = { minMs: 1, maxMs: 5, defaultMs: 1 };

describe("waitForTask", () => {
  it("follows a task to its terminal state, reporting each change once", async () => {
    const done = task({ status: "completed", result: { content: [] } });
    const { driver } = scripted([task(), task(), task({ statusMessage: "half" }), done]);
    const updates: TaskView[] = [];
    const outcome = await waitForTask(driver, "t", { onUpdate: (t) => updates.push(t) }, fast);
    expect(outcome).toMatchObject({ kind: "completed", isError: false });
    expect(updates.map((t) => t.statusMessage ?? t.status)).toEqual(["working", "half", "completed"]);
  });

  it("returns input_required to a caller without an answer handler, and when the handler leaves it open", async () => {
    const asking = task({ status: "input_required", inputRequests: { decision: { method: "elicitation/create" } } });
    expect(await waitForTask(scripted([asking]).driver, asking, {}, fast)).toMatchObject({
      kind: "input_required",
      inputRequests: { decision: { method: "elicitation/create" } },
    });
    const left = await waitForTask(scripted([asking], "unanswered").driver, asking, { onInputRequest: () => undefined }, fast);
    expect(left.kind).toBe("input_required");
  });

  it("ends at the deadline with timeout and on abort with aborted, never cancelling", async () => {
    const { driver, reads } = scripted([task()]);
    expect(await waitForTask(driver, task(), { deadlineMs: 30 }, fast)).toMatchObject({
      kind: "timeout",
      task: { status: "working" },
    });
    expect(reads()).toBeGreaterThan(0);
    expect(await waitForTask(driver, task(), { signal: AbortSignal.abort() }, fast)).toMatchObject({ kind: "aborted" });
  });
});
