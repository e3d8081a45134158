// `npm run test:stress [-- --runs N] [-- --load K] [vitest filters…]`: the integration project N
// times (default 5, or STRESS_RUNS) while K busy processes compete for the CPU (default: half the
// cores, at least one), then every test that failed at least once, with how often and its first
// failure. A test that fails here and passes alone waits for time instead of for a state
// (tests/helpers/wait-for.ts is the fix). Not part of `npm test`. Exits non-zero if anything failed.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { killAllNow, killGroup, runCommand, track } from "./lib/children";
import { type Failure, vitestFailures } from "./lib/test-reports";

const OUT = path.join("test-results", "stress");

function parseArgs(argv: string[]) {
  let runs = Number(process.env.STRESS_RUNS ?? 5);
  let load = Math.max(1, Math.floor(os.availableParallelism() / 2));
  const filters: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--runs") runs = Number(argv[++i]);
    else if (arg === "--load") load = Number(argv[++i]);
    else filters.push(arg);
  }
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(load) || load < 0) {
    console.error("usage: npm run test:stress -- [--runs N>=1] [--load K>=0] [vitest filters…]");
    process.exit(4);
  }
  return { runs, load, filters };
}

/** A process that only burns CPU, so the suite runs on a machine busier than its tests expect. */
function burner(): ChildProcess {
  return track(spawn(process.execPath, ["-e", "for (;;) {}"], { detached: true, stdio: "ignore" }));
}

type Seen = { runs: number[]; first: Failure };

async function main() {
  const { runs, load, filters } = parseArgs(process.argv.slice(2));
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const burners = Array.from({ length: load }, burner);
  const failures = new Map<string, Seen>();
  let passedTotal = 0;
  try {
    for (let run = 1; run <= runs; run++) {
      const report = path.join(OUT, `run-${run}.json`);
      console.log(`\n[stress] run ${run} of ${runs} (${load} busy processes)`);
      const vitest = path.join("node_modules", ".bin", "vitest");
      const code = await runCommand(vitest, ["run", "--project", "integration", `--outputFile.json=${report}`, ...filters], {
        cwd: process.cwd(),
      });
      const found = readFailures(report, code);
      passedTotal += found.passed;
      for (const failure of found.failures) {
        const key = failure.test ? `${path.relative(process.cwd(), failure.file)} > ${failure.test}` : failure.file;
        const seen = failures.get(key);
        if (seen) seen.runs.push(run);
        else failures.set(key, { runs: [run], first: failure });
      }
      console.log(`[stress] run ${run}: ${found.failures.length} failed`);
    }
  } finally {
    for (const b of burners) killGroup(b, "SIGKILL");
  }
  console.log("");
  for (const [key, seen] of failures) {
    console.log(`FAILED ${seen.runs.length}/${runs} (runs ${seen.runs.join(", ")})  ${key}`);
    console.log(indent(seen.first.message.split("\n").slice(0, 25).join("\n")));
  }
  console.log(`[stress] ${runs} runs of the integration project, ${passedTotal} test passes in all`);
  console.log(`${failures.size} tests failed at least once in ${runs} runs`);
  process.exitCode = failures.size > 0 ? 1 : 0;
}

function readFailures(file: string, code: number): { passed: number; failures: Failure[] } {
  try {
    const report = JSON.parse(readFileSync(file, "utf8"));
    const failures = vitestFailures(report);
    if (code !== 0 && failures.length === 0) failures.push({ file: "(vitest)", message: `exited ${code} without a failed test` });
    return { passed: Number(report.numPassedTests ?? 0), failures };
  } catch {
    return { passed: 0, failures: [{ file: "(vitest)", message: `exited ${code} without writing ${file}` }] };
  }
}

const indent = (text: string) =>
  text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");

process.on("exit", killAllNow);
for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.on(sig, () => {
    killAllNow();
    process.exit(130);
  });
main().catch((error) => {
  console.error(`[stress] ${error instanceof Error ? error.message : String(error)}`);
  killAllNow();
  process.exit(1);
});
