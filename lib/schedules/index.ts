export type { CatchUpPolicy, Schedule } from "./fire-times";
export { CATCH_UP_POLICIES, dueFireTime, nextFireTimes, parseSchedule } from "./fire-times";
export type { SchedulerPass } from "./scheduler-pass";
export { runSchedulerPass } from "./scheduler-pass";
export type { SchedulerTimer } from "./scheduler-timer";
export { startScheduler } from "./scheduler-timer";
