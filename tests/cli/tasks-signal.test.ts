import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SignalFixture, startSignalFixture } from "../http/signal-fixture";
import { lastJson, runCli } from "./run-cli";

let fx: SignalFixture;
let env: Record<string, string>;
beforeAll(async () => {
  fx = await startSignalFixture();
  // The MCP URL: the verb derives the HTTP API from its origin.
  env = { RUNIFOLD_URL: `${fx.origin}/api/mcp`, RUNIFOLD_KEY: fx.keyA };
});
afterAll(async () => {
  await fx?.close();
});

describe("runifold tasks signal (a real process against a real server)", { timeout: 120_000 }, () => {
  it("sends the payload (--json and plain); the waiting workflows complete with it", async () => {
    const [viaJson, viaPlain] = await Promise.all([fx.startRun(fx.tenantA), fx.startRun(fx.tenantA)]);
    const [json, plain] = await Promise.all([
      runCli(["tasks", "signal", viaJson, "approved", "--payload", '{"by":"cli","n":7}', "--json"], env),
      runCli(["tasks", "signal", viaPlain, "approved"], env),
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(lastJson(json)).toEqual({ taskId: viaJson, signal: "approved", accepted: true });
    expect(plain).toMatchObject({ code: 0, stdout: `Signal approved sent to task ${viaPlain}\n` });
    expect(await fx.waitForStatus(viaJson, fx.tenantA, ["completed", "failed"])).toBe("completed");
    expect(await fx.resultPayload(viaJson, fx.tenantA)).toEqual({ by: "cli", n: 7 });
    expect(await fx.waitForStatus(viaPlain, fx.tenantA, ["completed", "failed"])).toBe("completed");
    expect(await fx.resultPayload(viaPlain, fx.tenantA)).toBeNull();
  });

  it("exit 4 for not found, auth, a terminal task and usage errors; nothing is stored", async () => {
    const [live, foreign, finished] = await Promise.all([
      fx.startRun(fx.tenantA),
      fx.startRun(fx.tenantB),
      fx.startRun(fx.tenantA),
    ]);
    await runCli(["tasks", "signal", finished, "approved"], env);
    await fx.waitForStatus(finished, fx.tenantA, ["completed"]);
    const [notFound, noKey, readOnly, terminal, badJson, noName, badName, unreachable] = await Promise.all([
      runCli(["tasks", "signal", foreign, "approved"], env),
      runCli(["tasks", "signal", live, "approved"], { ...env, RUNIFOLD_KEY: "" }),
      runCli(["tasks", "signal", live, "approved"], { ...env, RUNIFOLD_KEY: fx.readOnlyKeyA }),
      runCli(["tasks", "signal", finished, "approved", "--payload", "1"], env),
      runCli(["tasks", "signal", live, "approved", "--payload", "{oops"], env),
      runCli(["tasks", "signal", live], env),
      runCli(["tasks", "signal", live, "not a name"], env),
      runCli(["tasks", "signal", live, "approved", "--url", "http://127.0.0.1:1/api/mcp"], env),
    ]);
    expect(notFound).toMatchObject({ code: 4, stderr: "error: Task not found\n" });
    expect(noKey.code).toBe(4);
    expect(noKey.stderr).toContain("(HTTP 401) (pass --key or set RUNIFOLD_KEY)");
    expect(readOnly).toMatchObject({ code: 4, stderr: expect.stringContaining('"tasks:write" scope (HTTP 403)') });
    expect(terminal).toMatchObject({ code: 4, stderr: expect.stringContaining("Task is completed") });
    expect(terminal.stderr).toContain("(HTTP 409)");
    expect(badJson).toMatchObject({ code: 4, stderr: expect.stringContaining("--payload is not valid JSON") });
    expect(noName).toMatchObject({ code: 4, stderr: expect.stringContaining("Missing <name>") });
    expect(badName).toMatchObject({ code: 4, stderr: expect.stringContaining("(HTTP 400)") });
    expect(unreachable).toMatchObject({ code: 4, stderr: expect.stringContaining("Cannot reach http://127.0.0.1:1") });
    expect(await fx.signalCount(live)).toBe(0);
    expect(await fx.signalCount(foreign)).toBe(0);
    expect(await fx.signalCount(finished)).toBe(1);
  });

  it("is listed in the help of the tasks group", async () => {
    const help = await runCli(["tasks", "signal", "--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("tasks signal <id> <name>");
    expect(help.stdout).toContain("--payload JSON");
    expect(help.stdout).not.toContain("--era");
  });
});
