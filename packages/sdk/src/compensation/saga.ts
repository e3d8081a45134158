import { isControlFlow, LeaseExpiredLocally } from "../errors";
import type { StepOptions } from "../workflow";
import type { CompletedStep } from "./types";

/** Undoes one completed step, given the output the step recorded (its JSON round trip). */
export type Compensation = (output: unknown) => Promise<unknown> | unknown;

/** The slice of onFailure's ctx a saga uses (FailureContext has it). */
export type SagaContext = {
  step<T>(key: string, fn: () => Promise<T> | T, options?: StepOptions): Promise<T>;
  readonly completedSteps: readonly CompletedStep[];
};

export type Saga = {
  /**
   * Registers the compensation of the body's step `stepKey`. It runs only if that step completed,
   * once per completion: a step called in a loop (`charge`, `repeat:charge#2`, …) is undone once per
   * iteration, each with its own output. Returns the saga, so registrations chain.
   */
  add(stepKey: string, compensate: Compensation, options?: StepOptions): Saga;
  /**
   * Runs the compensations of the completed steps in reverse order of completion, each as a step of
   * its own (`undo:<history key>`, so `onfailure:undo:charge` in the run's history): a crash in the
   * middle resumes after the last one recorded. One that fails after its retries does not stop the
   * others; once all ran, the first failure is thrown (the run keeps its original cause).
   */
  compensate(): Promise<void>;
};

/**
 * A saga over the body's completed steps, for `onFailure` (docs/authoring.md "Compensation"):
 *
 *     onFailure: (ctx) => saga(ctx).add("book-hotel", (hotel) => hotels.cancel(hotel.id))
 *                                   .add("charge", (charge) => payments.refund(charge.id)).compensate()
 *
 * Registration is by step key rather than inside the body as each step succeeds: a compensation
 * registered in the body would exist only in that process's memory and be lost with it, while the
 * steps' records are durable — so the saga reads what completed from the history instead.
 */
export function saga(ctx: SagaContext): Saga {
  const registered = new Map<string, { compensate: Compensation; options?: StepOptions }>();
  const self: Saga = {
    add(stepKey, compensate, options) {
      if (typeof stepKey !== "string" || stepKey.length === 0) throw new Error("saga.add needs a step key");
      if (typeof compensate !== "function") throw new Error(`saga.add("${stepKey}") needs a compensation function`);
      if (registered.has(stepKey)) throw new Error(`saga.add("${stepKey}"): registered twice`);
      registered.set(stepKey, { compensate, options });
      return self;
    },
    async compensate() {
      const due = ctx.completedSteps.filter((step) => registered.has(userKeyOf(step.key))).reverse();
      let first: unknown;
      let failed = false;
      for (const step of due) {
        const entry = registered.get(userKeyOf(step.key));
        if (!entry) continue;
        try {
          await ctx.step(`undo:${step.key}`, () => entry.compensate(step.output), entry.options);
        } catch (error) {
          // The engine's control flow (parked, lease lost, attempt ended) ends the hook at once.
          if (isControlFlow(error) || error instanceof LeaseExpiredLocally) throw error;
          if (!failed) first = error;
          failed = true;
        }
      }
      if (failed) throw first;
    },
  };
  return self;
}

/** `repeat:charge#2` → `charge`: the key the workflow wrote. */
function userKeyOf(historyKey: string): string {
  return /^repeat:(.+)#\d+$/.exec(historyKey)?.[1] ?? historyKey;
}
