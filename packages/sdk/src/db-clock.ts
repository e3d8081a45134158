/**
 * The database's clock, read once per claim and advanced with the local monotonic clock. Timers,
 * deadlines and claims all use the database's time (docs/architecture.md "One clock"); a worker
 * whose wall clock is skewed or jumps still measures elapsed time correctly.
 */
export type DbClock = { now(): number };

export function dbClockFrom(dbNow: Date): DbClock {
  const base = new Date(dbNow).getTime();
  const startedAt = performance.now();
  return { now: () => base + (performance.now() - startedAt) };
}
