import { readFileSync } from "node:fs";

/**
 * How scripts/test-all.ts and scripts/test-stress.ts read what a suite reported: counts from the
 * suite's JSON report (vitest, Playwright), from its last `N passed, N failed` line, or from its exit
 * code alone. One rule throughout: a suite that exits non-zero without reporting a failure counts
 * one failure (it crashed, or never got to its tests), so a broken runner can never read as green.
 */
export type Counts = { passed: number; failed: number };
export type SuiteRun = { code: number; output: string };
export type Report = {
  /** The JSON file the suite writes; removed before each run so a stale one is never read. */
  file?: string;
  count(run: SuiteRun): Counts;
};

// biome-ignore lint/suspicious/noExplicitAny: report files are JSON of the runners' own shapes
type Json = any;

export const SUMMARY_LINE = /^(\d+) passed, (\d+) failed\s*$/gm;

/** The exit code as one test. */
export const exitCodeReport: Report = {
  count: ({ code }) => (code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 }),
};

/** The last `N passed, N failed` line of the suite's output. */
export const summaryLineReport: Report = {
  count: (run) => withExitCode(lastSummary(run.output) ?? { passed: 0, failed: 0 }, run.code),
};

export function vitestReport(file: string): Report {
  return { file, count: (run) => withExitCode(fromFile(file, vitestCounts), run.code) };
}

export function playwrightReport(file: string): Report {
  return { file, count: (run) => withExitCode(fromFile(file, playwrightCounts), run.code) };
}

export function lastSummary(output: string): Counts | undefined {
  const last = [...output.matchAll(SUMMARY_LINE)].at(-1);
  return last ? { passed: Number(last[1]), failed: Number(last[2]) } : undefined;
}

/** Vitest's Jest-style JSON report; a file that failed to load (no failed test inside) counts as one failure. */
export function vitestCounts(report: Json): Counts {
  const failures = vitestFailures(report);
  const brokenFiles = failures.filter((f) => f.test === undefined).length;
  return { passed: Number(report?.numPassedTests ?? 0), failed: Number(report?.numFailedTests ?? 0) + brokenFiles };
}

export function playwrightCounts(report: Json): Counts {
  const stats = report?.stats ?? {};
  return { passed: Number(stats.expected ?? 0) + Number(stats.flaky ?? 0), failed: Number(stats.unexpected ?? 0) };
}

export type Failure = { file: string; test?: string; message: string };

/** Every failed test of a vitest JSON report, and every file that failed without a failed test (it did not load). */
export function vitestFailures(report: Json): Failure[] {
  const failures: Failure[] = [];
  for (const file of report?.testResults ?? []) {
    const failed = (file.assertionResults ?? []).filter((a: Json) => a.status === "failed");
    for (const assertion of failed)
      failures.push({ file: file.name, test: assertion.fullName, message: (assertion.failureMessages ?? []).join("\n") });
    if (file.status === "failed" && failed.length === 0)
      failures.push({ file: file.name, message: String(file.message ?? "the file failed outside its tests") });
  }
  return failures;
}

function fromFile(file: string, count: (report: Json) => Counts): Counts {
  try {
    return count(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return { passed: 0, failed: 0 }; // no report: the runner never got to write one
  }
}

function withExitCode(counts: Counts, code: number): Counts {
  return code !== 0 && counts.failed === 0 ? { ...counts, failed: 1 } : counts;
}
