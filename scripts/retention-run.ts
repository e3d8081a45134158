// `tsx scripts/retention-run.ts [--dry-run] [--json] [--batch-size N]`: one retention pass, now.
// Standalone until the CLI's command table (lib/client/cli/commands/index.ts) wires in
// lib/client/cli/commands/retention.ts as `runifold retention run`; both print the same thing.
import os from "node:os";
import { createDb } from "../db/client";
import { describeRetentionReport, retentionExitCode, runRetention } from "../lib/engine/retention";
import { readEnv } from "../lib/env";
import { resolveDatabaseUrl } from "../lib/store/database-url";

const USAGE = "usage: retention-run [--dry-run] [--json] [--batch-size N]  (N: 1..50000, default 500)";

function parse(argv: string[]): { dryRun: boolean; json: boolean; batchSize?: number } {
  const out: { dryRun: boolean; json: boolean; batchSize?: number } = { dryRun: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--dry-run") out.dryRun = true;
    else if (arg === "--json") out.json = true;
    else if (arg === "--batch-size" || arg?.startsWith("--batch-size=")) {
      const raw = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[++i];
      const n = Number(raw);
      if (!raw || !/^\d+$/.test(raw) || n < 1 || n > 50_000) throw new Error(`--batch-size must be an integer from 1 to 50000\n${USAGE}`);
      out.batchSize = n;
    } else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  return out;
}

async function main(): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 4;
  }
  const { sql } = createDb(resolveDatabaseUrl(readEnv()), { max: 2, name: "runifold-retention-cli" });
  try {
    const report = await runRetention(sql, { holder: `cli:${os.hostname()}:${process.pid}`, dryRun: args.dryRun, batchSize: args.batchSize });
    process.stdout.write(`${args.json ? JSON.stringify(report) : describeRetentionReport(report)}\n`);
    return retentionExitCode(report);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`retention run failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(4);
  },
);
