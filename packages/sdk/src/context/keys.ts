import { WorkflowMisuse } from "../errors";

/** Prefixes the engine uses for its own history keys (context/*.ts); a step key may not start with one. */
const RESERVED = /^(sleep|signal|input|deadline|retry|approval|now|random|uuid|repeat|child|child-result|patched):/;
/**
 * A run's recorded failure (`onfailure`) and its onFailure hook's history (`onfailure:…`,
 * compensation/on-failure.ts): reserved in every workflow, hooked or not, so a hook added in a later
 * version can never find a body step under its keys. The hook's own keys are prefixed after this
 * check (AttemptDeps.keyPrefix).
 */
const HOOK = /^onfailure(?::|$)/;

/** A user-chosen key (step, sleep, signal name, input key): 1-200 characters, not a reserved prefix. */
export function checkKey(key: unknown, what: string): string {
  if (typeof key !== "string" || key.length === 0 || key.length > 200)
    throw new WorkflowMisuse("invalid_argument", `${what} must be a string of 1-200 characters`);
  if (RESERVED.test(key))
    throw new WorkflowMisuse("invalid_argument", `${what} "${key}" uses a reserved prefix (${RESERVED.source})`);
  if (HOOK.test(key))
    throw new WorkflowMisuse("invalid_argument", `${what} "${key}" is reserved for onFailure's history (onfailure:)`);
  return key;
}

/** A duration argument: a finite number of milliseconds >= 0 (NaN or Infinity would make an invalid date). */
export function checkMs(ms: unknown, what: string): number {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0)
    throw new WorkflowMisuse("invalid_argument", `${what} must be a finite number of milliseconds >= 0 (got ${String(ms)})`);
  return ms;
}
