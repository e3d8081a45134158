import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  exitCodeReport,
  lastSummary,
  playwrightCounts,
  playwrightReport,
  summaryLineReport,
  vitestCounts,
  vitestFailures,
  vitestReport,
} from "./test-reports";

const dir = mkdtempSync(path.join(os.tmpdir(), "runifold-reports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, json: unknown) => {
  const target = path.join(dir, name);
  writeFileSync(target, JSON.stringify(json));
  return target;
};

const vitestJson = {
  numPassedTests: 3,
  numFailedTests: 1,
  testResults: [
    { name: "/r/tests/a.test.ts", status: "passed", assertionResults: [{ status: "passed", fullName: "a works" }] },
    {
      name: "/r/tests/b.test.ts",
      status: "failed",
      assertionResults: [
        { status: "passed", fullName: "b one" },
        { status: "failed", fullName: "b two", failureMessages: ["expected 1 to be 2", "at b.test.ts:9"] },
      ],
    },
    { name: "/r/tests/c.test.ts", status: "failed", message: "Cannot find module x", assertionResults: [] },
  ],
};

describe("suite reports", () => {
  it("counts vitest tests, and a file that failed to load as one failure", () => {
    expect(vitestCounts(vitestJson)).toEqual({ passed: 3, failed: 2 });
    expect(vitestFailures(vitestJson)).toEqual([
      { file: "/r/tests/b.test.ts", test: "b two", message: "expected 1 to be 2\nat b.test.ts:9" },
      { file: "/r/tests/c.test.ts", message: "Cannot find module x" },
    ]);
  });

  it("counts Playwright's expected and flaky tests as passed, unexpected ones as failed", () => {
    expect(playwrightCounts({ stats: { expected: 5, flaky: 1, unexpected: 2, skipped: 3 } })).toEqual({ passed: 6, failed: 2 });
  });

  it("reads the last summary line of an output", () => {
    expect(lastSummary("3 passed, 1 failed\nnoise\n12 passed, 0 failed\n")).toEqual({ passed: 12, failed: 0 });
    expect(lastSummary("Tests 3 passed | 1 failed")).toBeUndefined();
  });

  it("never reads a failing runner as green: no report, or a report without failures, counts one failure", () => {
    const clean = file("clean.json", { numPassedTests: 4, numFailedTests: 0, testResults: [] });
    expect(vitestReport(clean).count({ code: 0, output: "" })).toEqual({ passed: 4, failed: 0 });
    expect(vitestReport(clean).count({ code: 1, output: "" })).toEqual({ passed: 4, failed: 1 });
    expect(vitestReport(path.join(dir, "missing.json")).count({ code: 1, output: "" })).toEqual({ passed: 0, failed: 1 });
    expect(playwrightReport(path.join(dir, "missing.json")).count({ code: 2, output: "" })).toEqual({ passed: 0, failed: 1 });
    expect(summaryLineReport.count({ code: 1, output: "7 passed, 0 failed\n" })).toEqual({ passed: 7, failed: 1 });
    expect(summaryLineReport.count({ code: 1, output: "crashed" })).toEqual({ passed: 0, failed: 1 });
    expect(exitCodeReport.count({ code: 0, output: "" })).toEqual({ passed: 1, failed: 0 });
    expect(exitCodeReport.count({ code: 2, output: "" })).toEqual({ passed: 0, failed: 1 });
  });

  it("takes the reported failures as they are when the runner also exited non-zero", () => {
    const failing = file("failing.json", vitestJson);
    expect(vitestReport(failing).count({ code: 1, output: "" })).toEqual({ passed: 3, failed: 2 });
  });
});
