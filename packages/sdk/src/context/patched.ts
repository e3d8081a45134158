import { LeaseLost, StoreUnavailable } from "../errors";
import type { Attempt } from "./attempt";
import { checkKey } from "./keys";

/** The history key of a patch marker: a reserved prefix (keys.ts), never positional (replay/history.ts). */
export function patchKey(id: string): string {
  return `patched:${id}`;
}

/**
 * ctx.patched(id), Temporal's semantics: true when the run's history holds the marker `patched:<id>`
 * (it took the new path before), false when the run is replaying work it did past this point
 * without the marker (it ran the old code here, so it must keep the old path), and otherwise — the
 * run reaches this point for the first time — true, recording the marker.
 *
 * Synchronous on purpose: `if (ctx.patched("x"))` on a promise would always be true. The marker is
 * written through the coalesced checkpoints and awaited by the next step before its body runs
 * (history.markerWritten); a marker lost in a crash before anything later was recorded does no
 * harm, since the replay then reaches this point as a first execution again and answers true. A
 * marker write that fails ends the attempt, so no later work of this attempt can be recorded
 * without it.
 *
 * Markers take no position in the non-determinism check: adding a patch point, or deleting it
 * once no run needs the old path (`deprecatePatch` in between), does not shift the operations after it.
 */
export function patched(attempt: Attempt, rawId: string): boolean {
  const id = checkKey(rawId, "ctx.patched id");
  attempt.ensureOutsideStep(`ctx.patched("${id}")`);
  attempt.ensureLive();
  const { deps } = attempt;
  const key = patchKey(id);
  const point = deps.history.patchPoint(key);
  if (point !== "first") return point === "recorded";
  deps.state.steps.set(key, { value: true, seq: null });
  const write = attempt
    .store(() => deps.writes.checkpoint(deps.lease, { key, outputJson: "true", seq: null }))
    .then((held) => {
      if (!held) throw new LeaseLost("lease lost");
    });
  deps.history.markerWritten(
    write.catch((error: unknown) => {
      const reason = error instanceof Error ? error : new StoreUnavailable(String(error));
      deps.end(reason);
      throw reason;
    }),
  );
  return true;
}

/**
 * ctx.deprecatePatch(id): the stage after `patched(id)` once every run that took the old path has
 * finished — the code keeps only the new path and records nothing. It checks the id and that it is
 * called from workflow code; a marker already recorded by `patched(id)` is simply not needed any more.
 */
export function deprecatePatch(attempt: Attempt, rawId: string): void {
  const id = checkKey(rawId, "ctx.deprecatePatch id");
  attempt.ensureOutsideStep(`ctx.deprecatePatch("${id}")`);
}
