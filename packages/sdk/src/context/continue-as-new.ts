import { LeaseLost, RunSuspended, WorkflowMisuse } from "../errors";
import { encodeJson } from "../json-value";
import { continueRunAsNew } from "../ops/continue-as-new";
import type { Attempt } from "./attempt";

/**
 * ctx.continueAsNew (docs/authoring.md "Continue-as-new"): the run starts again from the top with
 * `input`, on a fresh history, as the same task. `parseInput` is the workflow's own input schema:
 * an input the next generation could not start from is refused here, before anything is written.
 * Never resolves: like a wait that parks, it ends this attempt (`RunSuspended`) once the transition
 * is committed; the run is queued again and any worker takes the next generation.
 */
export async function continueAsNew(
  attempt: Attempt,
  input: unknown,
  parseInput: ((input: unknown) => unknown) | undefined,
): Promise<never> {
  attempt.ensureOutsideStep("ctx.continueAsNew");
  attempt.ensureLive();
  const { deps } = attempt;
  // The stored input is what every claim parses again (workflow-input.ts): JSON, within a step's limit.
  const encoded = encodeJson(input, "ctx.continueAsNew input", deps.limits.stepOutputBytes);
  parseInput?.(encoded.value);
  const outcome = await attempt.exclusiveWait("ctx.continueAsNew", () =>
    attempt.store(() => continueRunAsNew(deps.sql, deps.lease, { inputJson: encoded.text })),
  );
  if (outcome.kind === "lease_lost") throw new LeaseLost("lease lost");
  if (outcome.kind === "refused") {
    attempt.misuse ??= new WorkflowMisuse("invalid_argument", `ctx.continueAsNew was refused: ${outcome.reason}`);
    throw attempt.misuse;
  }
  deps.logger.info("run continued as new", { runId: deps.lease.runId, generation: outcome.generation });
  throw attempt.park(new RunSuspended(`continued as new (generation ${outcome.generation})`));
}
