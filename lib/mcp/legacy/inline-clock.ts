/**
 * How long an ordinary tools/call that asks its questions inline (ordinary-stream.ts) waits.
 *
 * The route's sync deadline (`sync_deadline_ms`, 30 s by default) bounds the time the call waits
 * on the work — and on questions this client was not asked (no capability for them): then it answers
 * "still running, task X", as the JSON ordinary path does. Time during which a question this stream
 * asked is unanswered does not count against it: a person is reading the form. That time has its own
 * bound, INLINE_ANSWER_WAIT_MS (10 minutes) per question episode — long enough for a person, short
 * enough that a client whose user walked away gets an answer naming the task rather than an open
 * connection for the input request's whole lifetime. If the input request has its own, shorter
 * timeout, the run moves on when it fires (its default answer, or failure) and the stream follows.
 */
export const INLINE_ANSWER_WAIT_MS = 10 * 60_000;

export type InlineClock = {
  /** The instant the current wait ends, given whether a question asked on this stream is outstanding at `now`. */
  deadline(outstanding: boolean, now: number): number;
  /** The "still running" reason for a wait that ended with (or without) a question outstanding. */
  describe(outstanding: boolean): string;
};

export function inlineClock(syncDeadlineMs: number, startedAt = Date.now()): InlineClock {
  let budgetEnd = startedAt + syncDeadlineMs;
  let askingSince: number | undefined;
  return {
    deadline(outstanding, now) {
      if (outstanding) {
        askingSince ??= now;
        return askingSince + INLINE_ANSWER_WAIT_MS;
      }
      // The episode is over (answered, here or elsewhere): its time is given back to the budget.
      if (askingSince !== undefined) {
        budgetEnd += now - askingSince;
        askingSince = undefined;
      }
      return budgetEnd;
    },
    describe(outstanding) {
      return outstanding
        ? `No answer after ${Math.round(INLINE_ANSWER_WAIT_MS / 60_000)} minutes; the question stays open`
        : `Still running after ${Math.round(syncDeadlineMs / 1000)}s`;
    },
  };
}
