import type { RunStatus } from "../states";

/** The format tag of an exported history: a reader refuses any other. */
export const HISTORY_FORMAT = "runifold.history/1";

/** What kind of durable operation a history key records, in the words of the ctx call that wrote it. */
export type OperationKind =
  | "step"
  | "sleep"
  | "signal"
  | "input"
  | "approval"
  | "now"
  | "random"
  | "uuid"
  | "child"
  | "child-result"
  | "patched";

/**
 * One durable operation of a run: its history key (`charge`, `repeat:charge#2`, `sleep:nap`,
 * `signal:go#0`, `input:confirm`, `approval:ship`, `uuid:1`, `child:invoice`, `child-result:invoice`,
 * `patched:tax-fix`),
 * its kind, its recorded value (a step's output, a timer's `{wakeAt}`, a signal's `{received,
 * payload}`, an input's answer, a child's `{taskId, workflow}` and how it ended), its
 * position in the call order (null: reached while another operation was pending) and when it was
 * recorded. `preflight` marks an answer given when the run was created, before it asked.
 */
export type HistoryOperation = {
  seq: number | null;
  key: string;
  kind: OperationKind;
  value: unknown;
  at: string;
  preflight?: true;
};

/** `runifold tasks history <id> --json`: what `replayHistory` (`@runifold/sdk/testing`) reads. */
export type RunHistory = {
  format: typeof HISTORY_FORMAT;
  taskId: string;
  workflow: { name: string; version: number };
  status: RunStatus;
  /** The input as stored (the caller's JSON); each replay parses it with the definition's schema. */
  input: unknown;
  operations: HistoryOperation[];
};

const PREFIXED: Record<string, OperationKind> = {
  sleep: "sleep",
  signal: "signal",
  input: "input",
  approval: "approval",
  now: "now",
  random: "random",
  uuid: "uuid",
  child: "child",
  "child-result": "child-result",
  patched: "patched",
};

/** The kind of a history key (a numbered `repeat:` key is a step's; a sleep's keeps `sleep:`). */
export function operationKind(key: string): OperationKind {
  const prefix = /^([a-z]+(?:-[a-z]+)?):/.exec(key)?.[1];
  return (prefix && PREFIXED[prefix]) || "step";
}

/** Engine bookkeeping kept beside the operations (retry counts, signal deadlines): never exported or replayed. */
export function isBookkeeping(key: string): boolean {
  return /^(retry|deadline):/.test(key);
}
