import { AttemptEnded, ChildWorkflowFailed, LeaseLost, RunSuspended, WorkflowMisuse } from "../errors";
import { awaitChildren, type ChildOutcome, type ChildWait } from "../ops/await-children";
import { type ChildStart, startChild } from "../ops/start-child";
import { spanEvent } from "../telemetry/spans";
import type { AnyWorkflow, ChildHandle, ChildOptions, ChildWorkflowRef, WorkflowResult } from "../workflow";
import type { Attempt } from "./attempt";
import { settleChildStarts, trackChildStart } from "./child-starts";
import { checkKey } from "./keys";

/** Per attempt: the result waits not yet sent to the store (the starts in flight: child-starts.ts). */
type ChildScope = { pending: Pending[]; flushing: boolean };
type Pending = { wait: ChildWait; resolve(outcome: ChildOutcome): void; reject(error: unknown): void };

const scopes = new WeakMap<Attempt, ChildScope>();

function scopeOf(attempt: Attempt): ChildScope {
  let scope = scopes.get(attempt);
  if (!scope) {
    scope = { pending: [], flushing: false };
    scopes.set(attempt, scope);
  }
  return scope;
}

/**
 * ctx.child: starts another workflow as a run of this tenant (its own task ID) and hands back its
 * handle at once, so `Promise.all([ctx.child(a, x), ctx.child(b, y)].map((h) => h.result()))` fans
 * out. The start is a durable operation (history key `child:<key>`, ops/start-child.ts): created with
 * its record in one transaction, replayed afterwards, so no replay starts a second child. The key is
 * `options.key` or the workflow's name, numbered in a loop like a step's (`child:repeat:<key>#2`);
 * a second child of one key family started while other operations are pending (two children of the
 * same workflow in one `Promise.all`) needs its own key, as steps do (attempt.occurrence).
 *
 * Errors (a bad argument, a misuse, the attempt over) surface through the handle's promises, never
 * as a throw from ctx.child itself, so a dangling call cannot crash the workflow's code.
 */
export function startChildWorkflow(
  attempt: Attempt,
  workflow: ChildWorkflowRef<unknown>,
  input: unknown,
  options: ChildOptions | undefined,
): ChildHandle {
  let key: string;
  let started: Promise<ChildStart>;
  try {
    const { name, version, definition } = childTarget(workflow);
    const userKey = checkKey(options?.key ?? name, "ctx.child key");
    const what = `ctx.child("${userKey}")`;
    attempt.ensureOutsideStep(what);
    attempt.ensureLive();
    key = attempt.repeatedKey("child", userKey, what);
    started = recordStart(attempt, key, { name, version, definition, input });
  } catch (error) {
    key = typeof options?.key === "string" ? options.key : "";
    started = Promise.reject(error);
  }
  started.catch(() => {});
  let result: Promise<WorkflowResult> | undefined;
  const handle: ChildHandle = {
    key,
    taskId: () => started.then((start) => start.taskId),
    result: () => {
      result ??= awaitResult(attempt, key, started);
      result.catch(() => {});
      return result;
    },
  };
  return handle;
}

function childTarget(workflow: ChildWorkflowRef<unknown>): { name: string; version: number; definition?: AnyWorkflow } {
  if (typeof workflow !== "object" || workflow === null || typeof workflow.name !== "string")
    throw new WorkflowMisuse("invalid_argument", "ctx.child needs a workflow definition or { name, version }");
  if (!Number.isInteger(workflow.version) || workflow.version < 1)
    throw new WorkflowMisuse("invalid_argument", `ctx.child: workflow ${workflow.name} needs an integer version >= 1`);
  const definition = "run" in workflow && typeof workflow.run === "function" ? (workflow as AnyWorkflow) : undefined;
  return { name: workflow.name, version: workflow.version, definition };
}

async function recordStart(
  attempt: Attempt,
  key: string,
  target: { name: string; version: number; definition?: AnyWorkflow; input: unknown },
): Promise<ChildStart> {
  const { deps } = attempt;
  const stepKey = `child:${key}`;
  const op = deps.history.enter(stepKey);
  const work = (async () => {
    const recorded = deps.state.steps.get(stepKey);
    if (recorded) return recorded.value as ChildStart;
    const outcome = await attempt.store(() =>
      startChild(deps.sql, deps.lease, {
        key,
        seq: op.seq,
        tenantId: deps.tenantId,
        workflowName: target.name,
        workflowVersion: target.version,
        input: target.input,
        definition: target.definition,
      }),
    );
    if (outcome.kind === "lease_lost") throw new LeaseLost("lease lost");
    deps.state.steps.set(stepKey, { value: outcome.start, seq: op.seq });
    if (outcome.kind === "started") spanEvent("runifold.child.started", { "runifold.child.task_id": outcome.start.taskId });
    return outcome.start;
  })();
  trackChildStart(attempt, work);
  try {
    return await work;
  } finally {
    op.done();
  }
}

/** `handle.result()`: the recorded end, or a wait batched with the attempt's other child waits. */
async function awaitResult(attempt: Attempt, key: string, started: Promise<ChildStart>): Promise<WorkflowResult> {
  const start = await started;
  const what = `ctx.child("${key}").result()`;
  attempt.ensureOutsideStep(what);
  attempt.ensureLive();
  const { deps } = attempt;
  const resultKey = `child-result:${key}`;
  const op = deps.history.enter(resultKey);
  try {
    const recorded = deps.state.steps.get(resultKey)?.value as ChildOutcome | undefined;
    const outcome =
      recorded ??
      (await new Promise<ChildOutcome>((resolve, reject) => {
        const scope = scopeOf(attempt);
        scope.pending.push({ wait: { key, taskId: start.taskId, seq: op.seq }, resolve, reject });
        if (!scope.flushing) void flush(attempt, scope);
      }));
    return settle(start, outcome);
  } finally {
    op.done();
  }
}

function settle(start: ChildStart, outcome: ChildOutcome): WorkflowResult {
  if (outcome.status === "completed") return outcome.result;
  if (outcome.status === "failed") throw new ChildWorkflowFailed(start.taskId, start.workflow, "failed", outcome.error);
  throw new ChildWorkflowFailed(start.taskId, start.workflow, "cancelled", undefined, outcome.reason);
}

/**
 * Sends the pending result waits to the store as one batch (ops/await-children.ts). It waits first
 * for the children still being started, so a fan-out parks once with every child started rather than
 * park before the later starts reach the store (each would then wait for the next resume). The batch
 * is one wait for `exclusiveWait`: a timer or signal awaited beside it is refused, as two waits are.
 */
async function flush(attempt: Attempt, scope: ChildScope): Promise<void> {
  scope.flushing = true;
  try {
    while (scope.pending.length > 0) {
      await settleChildStarts(attempt);
      if (attempt.ended || attempt.suspended) {
        for (const pending of scope.pending.splice(0)) pending.reject(new AttemptEnded("this attempt has ended"));
        break;
      }
      let batch: Pending[] = [];
      try {
        const outcome = await attempt.exclusiveWait("ctx.child(...).result()", () => {
          batch = scope.pending.splice(0);
          return attempt.store(() =>
            awaitChildren(
              attempt.deps.sql,
              attempt.deps.lease,
              batch.map((pending) => pending.wait),
            ),
          );
        });
        if (outcome.kind === "lease_lost") throw new LeaseLost("lease lost");
        for (const pending of batch) {
          const ended = outcome.ended.get(pending.wait.key);
          if (!ended) continue;
          attempt.deps.state.steps.set(`child-result:${pending.wait.key}`, { value: ended, seq: pending.wait.seq });
          // Resolved only if the run goes on: a parked attempt's code must not run past its wait.
          if (!outcome.parked) pending.resolve(ended);
        }
        if (outcome.parked) {
          spanEvent("runifold.wait.children", { "runifold.wait.children": batch.map((pending) => pending.wait.taskId) });
          throw attempt.park(new RunSuspended("waiting for child tasks"));
        }
      } catch (error) {
        for (const pending of batch.length > 0 ? batch : scope.pending.splice(0)) pending.reject(error);
      }
    }
  } finally {
    scope.flushing = false;
  }
}
