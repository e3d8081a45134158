import { describe, expect, it } from "vitest";
import { parseWorkerArgs, WORKER_HELP } from "./worker-cli";

describe("parseWorkerArgs", () => {
  it("returns the module path from --workflows <path> and --workflows=<path>", () => {
    expect(parseWorkerArgs(["--workflows", "dist/workflows.js"], {})).toBe("dist/workflows.js");
    expect(parseWorkerArgs(["--workflows=dist/workflows.js"], {})).toBe("dist/workflows.js");
  });

  it("falls back to RUNIFOLD_WORKFLOWS, and the flag wins over it", () => {
    expect(parseWorkerArgs([], { RUNIFOLD_WORKFLOWS: "env.js" })).toBe("env.js");
    expect(parseWorkerArgs(["--workflows", "flag.js"], { RUNIFOLD_WORKFLOWS: "env.js" })).toBe("flag.js");
  });

  it("asks for help with -h or --help, wherever it appears", () => {
    expect(parseWorkerArgs(["--help"], {})).toEqual({ help: true });
    expect(parseWorkerArgs(["--workflows", "m.js", "-h"], {})).toEqual({ help: true });
  });

  it("is a usage error without a module, naming both ways to give one", () => {
    for (const env of [{}, { RUNIFOLD_WORKFLOWS: "" }]) {
      const parsed = parseWorkerArgs([], env);
      expect(parsed).toEqual({ usage: expect.stringMatching(/--workflows <module>.*RUNIFOLD_WORKFLOWS/) });
    }
    expect(parseWorkerArgs(["--workflows="], {})).toEqual({ usage: expect.stringContaining("--workflows <module>") });
  });

  it("is a usage error when --workflows has no value, or swallows the next flag as one", () => {
    expect(parseWorkerArgs(["--workflows"], {})).toEqual({ usage: "--workflows needs a module path" });
    expect(parseWorkerArgs(["--workflows", "--help"], {})).toEqual({ usage: "--workflows needs a module path" });
  });

  it("is a usage error for an unknown argument, naming it", () => {
    expect(parseWorkerArgs(["--workflows", "m.js", "--verbose"], {})).toEqual({ usage: "unknown argument: --verbose" });
    expect(parseWorkerArgs(["m.js"], {})).toEqual({ usage: "unknown argument: m.js" });
  });

  it("documents every environment variable and exit code the CLI has", () => {
    for (const name of [
      "DATABASE_URL",
      "RUNIFOLD_WORKER_CONCURRENCY",
      "RUNIFOLD_LEASE_MS",
      "RUNIFOLD_POLL_MS",
      "RUNIFOLD_LEASE_COMMIT",
      "RUNIFOLD_LOG_LEVEL",
    ]) {
      expect(WORKER_HELP).toContain(name);
    }
    expect(WORKER_HELP).toMatch(/Exit codes: 0 .*, 1 .*, 2 usage, 3 configuration/);
    for (const flag of ["--workflows <module>", "--dev", "--no-webhooks", "-h, --help"]) expect(WORKER_HELP).toContain(flag);
    expect(WORKER_HELP).toContain(".runifold/dev.json");
  });
});
