import { PREPARED } from "@runifold/store";
import type { ExecutionEnd } from "../execution-end";
import type { FailureCause } from "../failure-cause";
import { readCompensatedRun } from "../ops/compensation-runs";
import type { RecordedStep, RunState } from "../ops/load-run-state";
import { type HookEnv, hookSteps, runHookPlan, storeCall } from "./on-failure";

/**
 * A compensation run (origin `compensation`, migration 0041): the hook of a run that was cancelled,
 * run as a run of its own, because the cancelled task had to be `cancelled` before the cancel was
 * answered (both MCP eras). The hook sees the cancelled run's completed steps and replays the hook
 * steps that run had recorded already (it may have been compensating a failure when it was
 * cancelled), then this run's own. It ends completed, or failed with the hook's cause.
 */
export async function compensateCancelled(env: HookEnv, state: RunState): Promise<ExecutionEnd> {
  const { sql } = env.attemptDeps;
  const fail = (cause: FailureCause) =>
    env.finish({ status: "failed", error: { code: -32603, message: `Compensation failed: ${cause.message}` }, cause });
  const original = await storeCall(() => readCompensatedRun(sql, env.run.id));
  if (!original) {
    return fail({ code: "workflow_error", message: "the cancelled run this run compensates is gone", attempt: env.run.attempt });
  }
  if (!env.definition.onFailure) {
    return fail({ code: "workflow_error", message: `${env.run.workflow_key} has no onFailure hook`, attempt: env.run.attempt });
  }
  const theirs = await storeCall(() =>
    sql.unsafe<{ key: string; value: unknown; seq: number | null }[]>(
      "SELECT key, output AS value, seq FROM run_steps WHERE run_id = $1",
      [original.id],
      PREPARED,
    ),
  );
  const memo = hookSteps(new Map<string, RecordedStep>(theirs.map((row) => [row.key, { value: row.value, seq: row.seq }])));
  for (const [key, step] of hookSteps(state.steps)) memo.set(key, step);
  return runHookPlan(env, {
    memo,
    completedOf: original.id,
    failure: { input: env.input, status: "cancelled", error: { code: "cancelled", message: original.reason } },
    firstLine: `onFailure: compensating cancelled run ${original.id}`,
    succeeded: {
      status: "completed",
      result: {
        content: [{ type: "text", text: `Compensated cancelled run ${original.id}` }],
        structuredContent: { compensated: original.id },
      },
    },
    hookFailed: (cause) => ({
      status: "failed",
      error: { code: -32603, message: `Compensation of ${original.id} failed`, data: { cause: { code: cause.code } } },
      cause,
    }),
  });
}
