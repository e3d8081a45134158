// Preloaded into a worker process (NODE_OPTIONS=--import) to skew its wall clock by
// RUNIFOLD_TEST_CLOCK_SKEW_MS: Date.now() and new Date() run ahead (positive) or behind (negative)
// of the database's clock. The monotonic clock (performance.now) is left alone, as on a real host.
const offset = Number(process.env.RUNIFOLD_TEST_CLOCK_SKEW_MS ?? 0);
const RealDate = globalThis.Date;
class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...args);
  }
  static now() {
    return RealDate.now() + offset;
  }
}
globalThis.Date = SkewedDate;
