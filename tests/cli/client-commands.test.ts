import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientFixture, startClientFixture } from "../client/client-fixture";
import { lastJson, runCli } from "./run-cli";

let fx: ClientFixture;
let acme: Record<string, string>;
let conformance: Record<string, string>;

beforeAll(async () => {
  fx = await startClientFixture();
  acme = { DATABASE_URL: fx.db.url, RUNIFOLD_URL: fx.server.url, RUNIFOLD_KEY: fx.acmeKey };
  conformance = { ...acme, RUNIFOLD_KEY: fx.conformanceKey };
});
afterAll(async () => {
  await fx.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const report = (id: string, settleMs: number) => JSON.stringify({ report_id: id, settle_ms: settleMs });
const approval = (id: string) => JSON.stringify({ expense_id: id, amount: 42 });

describe("runifold MCP client commands (real processes against a real server)", { timeout: 120_000 }, () => {
  it("call: a synchronous tool prints its result (plain and --json)", async () => {
    const [plain, json] = await Promise.all([
      runCli(["call", "greet", "--args", '{"name":"Ada"}'], conformance),
      runCli(["call", "greet", "--args", '{"name":"Ada"}', "--json"], conformance),
    ]);
    expect(plain).toMatchObject({ code: 0, stdout: "Hello, Ada!\n" });
    expect(lastJson(json)).toMatchObject({
      outcome: "completed",
      isError: false,
      result: { content: [{ text: "Hello, Ada!" }] },
    });
  });

  it("call waits for a task by default; --detach prints the task ID for get and wait", async () => {
    const [waited, detached] = await Promise.all([
      runCli(["call", "durable_report", "--args", report("cli-wait", 200)], acme),
      runCli(["call", "durable_report", "--args", report("cli-detach", 300), "--detach"], acme),
    ]);
    expect(waited).toMatchObject({ code: 0, stdout: expect.stringContaining("Report cli-wait") });
    expect(detached.code).toBe(0);
    const taskId = detached.stdout.trim();
    expect(taskId).toMatch(UUID);
    const got = await runCli(["tasks", "get", taskId, "--json"], acme);
    expect(got.code).toBe(0);
    expect(lastJson(got)).toMatchObject({ taskId, era: "modern", status: expect.stringMatching(/working|completed/) });
    const done = await runCli(["tasks", "wait", taskId, "--json"], acme);
    expect(done.code).toBe(0);
    expect(lastJson(done)).toMatchObject({
      outcome: "completed",
      taskId,
      result: { structuredContent: { reportId: "cli-detach" } },
    });
    const plain = await runCli(["tasks", "get", taskId], acme);
    expect(plain.stdout).toMatch(/^task\s+\S+\nstatus\s+completed/);
  });

  it("call answers input with --input; a rejection exits 1 (completed with isError)", async () => {
    const [approved, rejected] = await Promise.all([
      runCli(
        ["call", "approve_expense", "--args", approval("C-1"), "--input", 'decision={"decision":"approve","comment":"ok"}'],
        acme,
      ),
      runCli(
        [
          "call",
          "approve_expense",
          "--args",
          approval("C-2"),
          "--input",
          'decision={"action":"accept","content":{"decision":"reject"}}',
          "--json",
        ],
        acme,
      ),
    ]);
    expect(approved).toMatchObject({ code: 0, stdout: "Expense C-1 approved: ok\n" });
    expect(rejected.code).toBe(1);
    expect(lastJson(rejected)).toMatchObject({
      outcome: "completed",
      isError: true,
      result: { structuredContent: { decision: "rejected" } },
    });
  });

  it("without an answer (not a terminal) exits 5 naming the task; tasks answer then tasks wait finish it", async () => {
    const pending = await runCli(["call", "approve_expense", "--args", approval("C-3")], acme);
    expect(pending.code).toBe(5);
    const taskId = /task (\S+) is waiting for input/.exec(pending.stderr)?.[1] as string;
    expect(taskId).toMatch(UUID);
    expect(pending.stderr).toContain("decision: Approve expense C-3");
    const [unknownKey, notJson] = await Promise.all([
      runCli(["tasks", "answer", taskId, "--input", 'colour={"c":1}'], acme),
      runCli(["tasks", "answer", taskId, "--input", "decision=approve"], acme),
    ]);
    expect(unknownKey).toMatchObject({ code: 4, stderr: expect.stringContaining("not asking for colour (pending: decision)") });
    expect(notJson.code).toBe(4);
    const answered = await runCli(["tasks", "answer", taskId, "--input", 'decision={"decision":"approve"}', "--json"], acme);
    expect(lastJson(answered)).toEqual({ taskId, answered: ["decision"] });
    expect(await runCli(["tasks", "wait", taskId], acme)).toMatchObject({ code: 0, stdout: "Expense C-3 approved.\n" });
  });

  it("tasks wait answers input with --input", async () => {
    const detached = await runCli(["call", "approve_expense", "--args", approval("C-4"), "--detach", "--json"], acme);
    const { taskId } = lastJson(detached);
    const waited = await runCli(["tasks", "wait", taskId, "--input", 'decision={"decision":"approve"}', "--json"], acme);
    expect(waited.code).toBe(0);
    expect(lastJson(waited)).toMatchObject({ outcome: "completed", isError: false });
  });

  it("exit codes: failed 2, cancelled 3, deadline 5 (the task keeps running)", async () => {
    const [failed, longTask, short] = await Promise.all([
      runCli(["call", "protocol_error_job", "--json"], conformance),
      runCli(["call", "durable_report", "--args", report("cli-cancel", 600_000), "--detach"], acme),
      // Sleeps for ten minutes (cancelled below): "still working" cannot depend on how fast processes start.
      runCli(["call", "durable_report", "--args", report("cli-deadline", 600_000), "--deadline-ms", "300"], acme),
    ]);
    expect(failed.code).toBe(2);
    expect(lastJson(failed)).toMatchObject({ outcome: "failed", error: { code: -32603 } });
    expect(short.code).toBe(5);
    expect(short.stderr).toMatch(/deadline reached; task \S+ is still working/);
    const stillRunning = /task (\S+) is still/.exec(short.stderr)?.[1] as string;
    expect(lastJson(await runCli(["tasks", "get", stillRunning, "--json"], acme)).status).toBe("working");

    const taskId = longTask.stdout.trim();
    const cancelled = await runCli(["tasks", "cancel", taskId, "--json"], acme);
    expect(cancelled.code).toBe(0);
    expect(lastJson(cancelled)).toMatchObject({ taskId, cancelRequested: true });
    const [waited, got] = await Promise.all([runCli(["tasks", "wait", taskId], acme), runCli(["tasks", "get", taskId], acme)]);
    expect(waited).toMatchObject({ code: 3, stderr: `task ${taskId} was cancelled\n` });
    expect(got.code).toBe(3);
    await runCli(["tasks", "cancel", stillRunning], acme);
  });

  it("tasks listen prints one JSON snapshot per line until the task is terminal", async () => {
    const { taskId } = lastJson(
      await runCli(["call", "durable_report", "--args", report("cli-listen", 500), "--detach", "--json"], acme),
    );
    const listened = await runCli(["tasks", "listen", taskId, "--json"], acme);
    expect(listened.code).toBe(0);
    const snapshots = listened.lines.map((line) => JSON.parse(line));
    expect(snapshots.length).toBeGreaterThanOrEqual(1);
    expect(snapshots.every((s: { taskId: string }) => s.taskId === taskId)).toBe(true);
    expect(snapshots.at(-1)).toMatchObject({ status: "completed" });
  });

  it("answers a question asked before the task starts (MRTR) with --input; without one it exits 4", async () => {
    const [answered, unanswered] = await Promise.all([
      runCli(["call", "test_tool_with_task", "--input", 'user_name={"name":"Grace"}'], conformance),
      runCli(["call", "test_tool_with_task"], conformance),
    ]);
    expect(answered).toMatchObject({ code: 0, stdout: expect.stringContaining("Hello, Grace!") });
    expect(unanswered).toMatchObject({
      code: 4,
      stderr: expect.stringContaining("test_tool_with_task needs input before it starts"),
    });
    expect(unanswered.stderr).toContain("answer with --input user_name=JSON");
  });

  it("speaks the legacy era too (--era legacy)", async () => {
    const run = await runCli(
      [
        "call",
        "approve_expense",
        "--era",
        "legacy",
        "--args",
        approval("C-L"),
        "--input",
        'decision={"decision":"approve"}',
        "--json",
      ],
      acme,
    );
    expect(run.code).toBe(0);
    expect(lastJson(run)).toMatchObject({ outcome: "completed", task: { era: "legacy" } });
  });

  it("errors are one line on stderr with exit 4: unknown task, bad key, bad arguments, unreachable server", async () => {
    const [unknown, badKey, badArgs, unreachable, missingId] = await Promise.all([
      runCli(["tasks", "get", "00000000-0000-4000-8000-00000000dead"], acme),
      runCli(["call", "greet", "--key", "rf_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"], acme),
      runCli(["call", "greet", "--args", "{name:"], conformance),
      runCli(["tasks", "get", "x", "--url", "http://127.0.0.1:9/api/mcp"], acme),
      runCli(["tasks", "wait"], acme),
    ]);
    expect(unknown).toMatchObject({ code: 4, stderr: "error: Task not found (code -32602)\n" });
    expect(badKey).toMatchObject({ code: 4, stderr: expect.stringMatching(/HTTP 401/) });
    expect(badArgs).toMatchObject({ code: 4, stderr: expect.stringContaining("--args is not valid JSON") });
    expect(unreachable).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(/^error: Cannot reach http:\/\/127\.0\.0\.1:9\/api\/mcp/),
    });
    expect(missingId).toMatchObject({ code: 4, stderr: expect.stringContaining("Missing <id>") });
    for (const run of [unknown, badKey, badArgs, unreachable]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
