import os from "node:os";
import { describeRetentionReport, runRetention } from "../../../lib/retention";
import { listRetentionRuns } from "../../../lib/tasks";
import { intOption, positionals } from "../../args";
import { withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { isoOrDash, print, printJson, printTable } from "../../output";
import { registerCommand } from "../registry";

const JSON_FLAG = { name: "json", description: "Machine-readable output (one JSON document)" };

registerCommand({
  name: "retention",
  summary: "Purge terminal runs past their tenant's retention (fenced; one cleaner at a time)",
  verbs: [
    {
      name: "run",
      args: "",
      summary: "Run one cleaner pass now (workers also run one every RUNIFOLD_RETENTION_INTERVAL_MS)",
      options: [
        { name: "dry-run", description: "Count what would be purged; delete nothing" },
        { name: "batch-size", value: "N", description: "Runs per transaction (default 500)" },
        JSON_FLAG,
      ],
      notes: [
        "Only terminal runs (completed, failed, cancelled) older than the tenant's retention are purged, each leaving a tombstone.",
        "If another cleaner holds the lock the pass is skipped (exit 0); a pass fenced out or failed exits 4.",
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const batchSize = intOption(parsed, "batch-size", { min: 1, max: 50_000 });
        const report = await withDatabase(io, (sql) =>
          runRetention(sql, { holder: `cli:${os.hostname()}:${process.pid}`, dryRun: parsed.flags.has("dry-run"), batchSize }),
        );
        if (parsed.flags.has("json")) printJson(io, report);
        else print(io.stdout, describeRetentionReport(report));
        return report.status === "completed" || report.status === "skipped" ? EXIT.completed : EXIT.error;
      },
    },
    {
      name: "runs",
      args: "",
      summary: "The last cleaner passes (newest first)",
      options: [{ name: "limit", value: "N", description: "How many (default 20)" }, JSON_FLAG],
      async run(parsed, io) {
        positionals(parsed, []);
        const limit = intOption(parsed, "limit", { min: 1, max: 500 }) ?? 20;
        const runs = await withDatabase(io, (sql) => listRetentionRuns(sql, { limit }));
        if (parsed.flags.has("json")) printJson(io, runs);
        else {
          printTable(
            io,
            ["STARTED", "STATUS", "PURGED", "BATCHES", "MS", "EPOCH", "HOLDER"],
            runs.map((r) => [
              isoOrDash(r.startedAt),
              r.dryRun ? `${r.status} (dry run)` : r.status,
              String(r.purged),
              String(r.batches),
              r.durationMs === null ? "-" : String(r.durationMs),
              String(r.epoch),
              r.holder,
            ]),
          );
        }
        return EXIT.completed;
      },
    },
  ],
});
