import { Cron } from "croner";

export type CatchUpPolicy = "skip" | "one";
export const CATCH_UP_POLICIES: readonly CatchUpPolicy[] = ["skip", "one"];

export type Schedule = { cron: string; timezone: string; catchUp: CatchUpPolicy };

/**
 * Parses a route's schedule with croner (5 or 6 fields, an IANA timezone). Throws with a message a
 * person can act on; the route form and the CLI call this before saving a revision.
 */
export function parseSchedule(input: { cron: string; timezone?: string | null; catchUp?: string | null }): Schedule {
  const timezone = input.timezone || "UTC";
  const catchUp = (input.catchUp ?? "skip") as CatchUpPolicy;
  if (!CATCH_UP_POLICIES.includes(catchUp)) throw new Error(`catch-up policy must be one of ${CATCH_UP_POLICIES.join(", ")}`);
  try {
    new Cron(input.cron, { timezone, paused: true }).nextRun();
  } catch (error) {
    throw new Error(`invalid schedule "${input.cron}" (${timezone}): ${error instanceof Error ? error.message : String(error)}`);
  }
  return { cron: input.cron, timezone, catchUp };
}

/**
 * Which fire time a scheduler pass at `now` starts a run for, given the last fire time handled
 * (`after`), and where the cursor moves. Only the latest due fire time can fire:
 * - `skip`: it fires if it is recent (within `graceMs` — a normal pass is late by at most its
 *   interval); after downtime the missed fire times are skipped and the schedule goes on.
 * - `one`: it fires whatever its age, so a backlog of missed fire times becomes exactly one run.
 * Fire times finer than the pass interval therefore fire at most once per pass.
 */
export function dueFireTime(
  schedule: Schedule,
  after: Date,
  now: Date,
  graceMs: number,
): { fire: Date | undefined; cursor: Date } | undefined {
  const cron = new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
  const first = cron.nextRun(after);
  if (!first || first.getTime() > now.getTime()) return undefined;
  const latest = cron.previousRuns(1, new Date(now.getTime() + 1))[0] ?? first;
  const recent = now.getTime() - latest.getTime() <= graceMs;
  const fire = schedule.catchUp === "one" || recent ? latest : undefined;
  return { fire, cursor: latest };
}

/** The next `count` fire times of a schedule after `from` (route page and `routes schedule --preview`). */
export function nextFireTimes(schedule: Schedule, count: number, from = new Date()): Date[] {
  return new Cron(schedule.cron, { timezone: schedule.timezone, paused: true }).nextRuns(count, from);
}
