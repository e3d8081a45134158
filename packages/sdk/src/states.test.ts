import { describe, expect, it } from "vitest";
import {
  canTransition,
  isRunStatus,
  isTerminal,
  RUN_STATUSES,
  type RunStatus,
  TERMINAL_STATUSES,
  TERMINAL_STATUSES_SQL,
  WAITING_STATUSES,
} from "./states";

describe("the run state table", () => {
  it("makes terminal states final: no move out of completed, failed or cancelled", () => {
    for (const from of TERMINAL_STATUSES)
      for (const to of RUN_STATUSES) expect(canTransition(from, to), `${from} → ${to}`).toBe(false);
  });

  it("lets every active state be cancelled, and nothing be cancelled into anything", () => {
    for (const from of RUN_STATUSES.filter((s) => !isTerminal(s))) expect(canTransition(from, "cancelled"), from).toBe(true);
  });

  it("completes a run only from a lease; fails it from a lease or, past its timeout, from any active state", () => {
    expect(RUN_STATUSES.filter((from) => canTransition(from, "completed"))).toEqual(["leased"]);
    expect(RUN_STATUSES.filter((from) => canTransition(from, "failed"))).toEqual(RUN_STATUSES.filter((s) => !isTerminal(s)));
  });

  it("reaches every waiting state only from a lease, and leaves it by a claim or a requeue", () => {
    for (const waiting of WAITING_STATUSES) {
      expect(RUN_STATUSES.filter((from) => canTransition(from, waiting))).toEqual(["leased"]);
      expect(canTransition(waiting, "leased") || canTransition(waiting, "queued"), waiting).toBe(true);
    }
    // Input is answered by requeueing; a worker claims a run that still waits only at an input deadline.
    expect(canTransition("waiting_input", "queued")).toBe(true);
  });

  it("allows an expired lease to be claimed again (leased → leased) and a due timer to join the backlog", () => {
    expect(canTransition("leased", "leased")).toBe(true);
    expect(canTransition("sleeping", "queued")).toBe(true);
    expect(canTransition("queued", "sleeping")).toBe(false);
  });

  it("keeps the terminal list, its SQL form and isTerminal in step", () => {
    expect([...TERMINAL_STATUSES]).toEqual(["completed", "failed", "cancelled"]);
    expect(TERMINAL_STATUSES_SQL).toBe("('completed', 'failed', 'cancelled')");
    expect(RUN_STATUSES.filter(isTerminal)).toEqual([...TERMINAL_STATUSES]);
    expect(Object.isFrozen(TERMINAL_STATUSES)).toBe(true);
    expect(Object.isFrozen(WAITING_STATUSES)).toBe(true);
  });

  it("recognises exactly the eight statuses", () => {
    for (const status of RUN_STATUSES) expect(isRunStatus(status)).toBe(true);
    for (const other of ["", "running", "COMPLETED", "working", "input_required"]) expect(isRunStatus(other), other).toBe(false);
    const all: readonly RunStatus[] = RUN_STATUSES;
    expect(new Set(all).size).toBe(8);
  });
});
