import { InputTimedOut, LeaseLost, RunSuspended, WorkflowMisuse } from "../errors";
import { encodeJson } from "../json-value";
import { suspendForInput } from "../ops/suspend-for-input";
import { suspendForSignal } from "../ops/suspend-for-signal";
import { suspendForTimer } from "../ops/suspend-for-timer";
import { spanEvent } from "../telemetry/spans";
import type { InputRequest, InputResponse, InputTimeout, SignalResult } from "../workflow";
import type { Attempt } from "./attempt";
import { checkKey, checkMs } from "./keys";

/** ctx.sleep: a durable timer. The wake time is the database's (ops/suspend-for-timer.ts). */
export async function sleep(attempt: Attempt, rawKey: string, ms: number): Promise<void> {
  const userKey = (attempt.deps.keyPrefix ?? "") + checkKey(rawKey, "ctx.sleep key");
  checkMs(ms, `ctx.sleep("${userKey}") ms`);
  attempt.ensureOutsideStep(`ctx.sleep("${userKey}")`);
  attempt.ensureLive();
  // `nap`, or `repeat:nap#2` in a loop; stored as the step `sleep:<key>`.
  const key = attempt.repeatedKey("sleep", userKey, `ctx.sleep("${userKey}")`);
  const stepKey = `sleep:${key}`;
  const { deps } = attempt;
  const op = deps.history.enter(stepKey);
  try {
    const timer = deps.state.steps.get(stepKey)?.value as { wakeAt: string } | undefined;
    // Due by the database's clock as this attempt estimates it; if the estimate says "not yet",
    // the statement below decides with the database's own now().
    if (timer && Date.parse(timer.wakeAt) <= deps.clock.now()) return;
    const outcome = await attempt.exclusiveWait(`ctx.sleep("${key}")`, () =>
      attempt.store(() => suspendForTimer(deps.sql, deps.lease, { key, ms, recordedWakeAt: timer?.wakeAt, seq: op.seq })),
    );
    if (outcome === "lease_lost") throw new LeaseLost("lease lost");
    if (outcome === "due") return;
    spanEvent("runifold.wait.timer", { "runifold.wait.key": key, "runifold.wait.ms": ms });
    throw attempt.park(new RunSuspended(`sleeping (${key})`));
  } finally {
    op.done();
  }
}

/** ctx.waitForSignal: the n-th wait for a name reads the n-th delivery (`signal:<name>#<n>`). */
export function signalWaiter(attempt: Attempt) {
  const waits = new Map<string, number>();
  return async function waitForSignal<T>(rawName: string, options?: { timeoutMs?: number }): Promise<SignalResult<T>> {
    const name = checkKey(rawName, "ctx.waitForSignal name");
    const timeoutMs =
      options?.timeoutMs === undefined ? undefined : checkMs(options.timeoutMs, `ctx.waitForSignal("${name}") timeoutMs`);
    attempt.ensureOutsideStep(`ctx.waitForSignal("${name}")`);
    attempt.ensureLive();
    const index = waits.get(name) ?? 0;
    waits.set(name, index + 1);
    const stepKey = `signal:${name}#${index}`;
    attempt.claimKey(stepKey);
    const { deps } = attempt;
    const op = deps.history.enter(stepKey);
    try {
      const recorded = deps.state.steps.get(stepKey);
      if (recorded) return recorded.value as SignalResult<T>;
      const outcome = await attempt.exclusiveWait(`ctx.waitForSignal("${name}")`, () =>
        attempt.store(() => suspendForSignal(deps.sql, deps.lease, { stepKey, name, timeoutMs, seq: op.seq })),
      );
      if (outcome.kind === "lease_lost") throw new LeaseLost("lease lost");
      if (outcome.kind === "suspended") {
        spanEvent("runifold.wait.signal", { "runifold.wait.signal": name });
        throw attempt.park(new RunSuspended(`waiting for signal ${name}`));
      }
      const result = (
        outcome.kind === "recorded"
          ? outcome.output
          : outcome.kind === "received"
            ? { received: true, payload: outcome.payload }
            : { received: false }
      ) as SignalResult<T>;
      deps.state.steps.set(stepKey, { value: result, seq: op.seq });
      return result;
    } finally {
      op.done();
    }
  };
}

/** ctx.requestInputs: durable keyed interrupts, optionally with a timeout and a default answer. */
export async function requestInputs(
  attempt: Attempt,
  requests: Record<string, InputRequest>,
  timeout?: InputTimeout,
): Promise<Record<string, InputResponse>> {
  if (typeof requests !== "object" || requests === null)
    throw new WorkflowMisuse("invalid_argument", "ctx.requestInputs needs an object of keyed requests");
  const keys = Object.keys(requests).map((key) => checkKey(key, "input key"));
  if (keys.length === 0) return {};
  const deadline = timeout ? inputDeadline(attempt, timeout) : undefined;
  attempt.ensureOutsideStep(keys.length === 1 ? `ctx.requestInput("${keys[0]}")` : "ctx.requestInputs");
  attempt.ensureLive();
  for (const key of keys) attempt.claimKey(`input:${key}`);
  const { deps } = attempt;
  const op = deps.history.enter(
    `input:${keys.join(",")}`,
    keys.map((key) => `input:${key}`),
  );
  try {
    if (keys.every((key) => deps.state.answers.has(key))) {
      // At the frontier (nothing recorded after it) this attempt is the first to see the answers: the wait ended.
      if (!deps.history.replaying) spanEvent("runifold.input.answered", { "runifold.input.keys": keys });
      return Object.fromEntries(keys.map((key) => [key, deps.state.answers.get(key) as InputResponse]));
    }
    // Requests carry text from the workflow (a message, a schema): refused here, naming the key, if
    // the store could not hold it. No size limit of their own: they are the workflow's own constants.
    for (const key of keys) encodeJson(requests[key], `input request "${key}"`, Number.POSITIVE_INFINITY);
    const what =
      keys.length === 1 ? `ctx.requestInput("${keys[0]}")` : `ctx.requestInputs(${keys.map((k) => `"${k}"`).join(", ")})`;
    const outcome = await attempt.exclusiveWait(what, () =>
      attempt.store(() => suspendForInput(deps.sql, deps.lease, requests, deadline)),
    );
    if (outcome.kind === "lease_lost") throw new LeaseLost("lease lost");
    if (outcome.kind === "suspended") {
      // The wait itself spans attempts: this event marks where it began; the attempt that resumes the
      // run says `runifold.resumed_from: waiting_input`.
      spanEvent("runifold.wait.input", { "runifold.input.keys": keys });
      throw attempt.park(new RunSuspended(`waiting for input ${keys.join(", ")}`));
    }
    if (outcome.kind === "timed_out") {
      throw new InputTimedOut(
        `input ${outcome.keys.map((k) => `"${k}"`).join(", ")} not answered within ${timeout?.timeoutMs} ms`,
      );
    }
    for (const [key, response] of Object.entries(outcome.responses)) deps.state.answers.set(key, response);
    return outcome.responses;
  } finally {
    op.done();
  }
}

function inputDeadline(attempt: Attempt, timeout: InputTimeout) {
  const timeoutMs = checkMs(timeout.timeoutMs, "requestInput timeoutMs");
  const onTimeout = timeout.onTimeout ?? "fail";
  if (onTimeout === "fail") return { timeoutMs, answerJson: null };
  if (typeof onTimeout !== "object" || !["accept", "decline", "cancel"].includes(onTimeout.action))
    throw new WorkflowMisuse("invalid_argument", 'requestInput onTimeout must be "fail" or an answer ({ action, content? })');
  return {
    timeoutMs,
    answerJson: encodeJson(onTimeout, "requestInput onTimeout answer", attempt.deps.limits.inputAnswerBytes).text,
  };
}
