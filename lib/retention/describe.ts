import type { RetentionReport } from "./run-retention";

/** One human line per cleaner pass (CLI output, logs); `--json` prints the report itself. */
export function describeRetentionReport(report: RetentionReport): string {
  if (report.status === "skipped") return `Skipped: ${report.reason}; nothing done.`;
  const nonces = report.nonces === 1 ? "1 expired requestState nonce" : `${report.nonces} expired requestState nonces`;
  if (report.dryRun) {
    return `Dry run (epoch ${report.epoch}): ${report.purged} terminal runs past retention and ${nonces} would be purged; nothing deleted.`;
  }
  const done = `${report.purged} runs (${report.events} events) and ${nonces} purged in ${report.batches} batches, ${report.durationMs} ms, epoch ${report.epoch}`;
  if (report.status === "completed") return `Purged ${done}.`;
  if (report.status === "fenced") return `Stopped, fenced out by a newer cleaner after ${done}: ${report.error}.`;
  return `Failed after ${done}: ${report.error}`;
}
