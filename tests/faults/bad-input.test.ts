import { PassThrough, Readable } from "node:stream";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../cli/run";
import { createOperator } from "../../db/queries/operators";
import type { OperatorContext } from "../../lib/auth";
import { createApiKey } from "../../lib/auth";
import { handleTaskDetail, handleTaskList } from "../../lib/ui/handlers/task-handlers";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { startMcpTestServer } from "../helpers/mcp-server";
import { waitFor } from "../helpers/wait-for";
import { cliCases, httpCases, uiCases } from "./bad-input-corpus";
import { INTERNAL_DETAIL, printCounts } from "./support";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let token: string;
let operatorId: string;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await seedDemo(sql);
  const tenant = (await sql`SELECT id FROM tenants WHERE slug = 'conformance'`)[0]?.id as string;
  token = (await createApiKey(sql, { tenantId: tenant, name: "faults" })).token;
  operatorId = (await createOperator(sql, { email: "faults@example.test", passwordHash: "not-a-hash", role: "admin" })).id;
  server = await startMcpTestServer(sql); // with a worker: calls on the ordinary path wait for their result
});
afterAll(async () => {
  await server.close();
  await db.drop();
});

/** Row counts of every table a request could write to, once the worker has nothing in hand. */
async function snapshot(): Promise<string> {
  await waitFor(
    async () =>
      Number(
        (
          await sql`SELECT count(*) AS n FROM runs WHERE status IN ('queued', 'leased') OR (status = 'sleeping' AND claimable_at < now() + interval '5 seconds')`
        )[0]?.n,
      ),
    (busy) => busy === 0,
    { describe: "the worker to have no run in hand", everyMs: 5 },
  );
  const [row] = await sql`SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM run_events) AS events,
    (SELECT count(*) FROM run_inputs) AS inputs, (SELECT count(*) FROM run_signals) AS signals, (SELECT count(*) FROM api_keys) AS keys,
    (SELECT count(*) FROM tenants) AS tenants, (SELECT count(*) FROM routes) AS routes, (SELECT count(*) FROM operators) AS operators`;
  return JSON.stringify(row);
}

type Outcome = { status: number; text: string; rejected: boolean };
const failures: string[] = [];
const counts = { cases: 0, "5xx": 0, leaks: 0, writesOnRejected: 0 };

async function check(label: string, run: () => Promise<Outcome>) {
  counts.cases++;
  if (process.env.FAULTS_DEBUG) process.stdout.write(`case ${label.slice(0, 100)}\n`);
  const before = await snapshot();
  let outcome: Outcome;
  try {
    outcome = await run();
  } catch (error) {
    outcome = { status: 599, text: `threw: ${error instanceof Error ? error.message : String(error)}`, rejected: true };
  }
  const after = await snapshot();
  if (outcome.status >= 500) {
    counts["5xx"]++;
    failures.push(`${label}: ${outcome.status} ${outcome.text.slice(0, 200)}`);
  }
  if (INTERNAL_DETAIL.test(outcome.text)) {
    counts.leaks++;
    failures.push(`${label}: leaks internal detail: ${outcome.text.slice(0, 300)}`);
  }
  if (outcome.rejected && before !== after) {
    counts.writesOnRejected++;
    failures.push(`${label}: rejected but wrote ${before} → ${after}`);
  }
}

describe("bad-input corpus: /api/mcp, CLI, UI handlers", () => {
  it("answers every malformed input without a 5xx, internal detail or a write", { timeout: 240_000 }, async () => {
    const taskId = (await sql`SELECT gen_random_uuid() AS id`)[0]?.id as string;
    for (const c of httpCases(taskId)) {
      await check(`mcp ${c.name}`, async () => {
        const response = await fetch(server.url, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...c.headers },
          body: c.body,
          signal: AbortSignal.timeout(10_000),
        });
        const text = await response.text();
        const rejected = response.status >= 400 || /"error"\s*:|"isError"\s*:\s*true/.test(text);
        return { status: response.status, text, rejected };
      });
    }
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: "test",
      DATABASE_URL: db.url,
      RUNIFOLD_URL: server.url,
      RUNIFOLD_KEY: token,
      RUNIFOLD_LOG_LEVEL: "silent",
    };
    for (const argv of cliCases(taskId)) {
      await check(`cli ${argv.join(" ").slice(0, 120)}`, async () => {
        const stdout = new PassThrough();
        const stderr = new PassThrough();
        let text = "";
        stdout.on("data", (d) => {
          text += d;
        });
        stderr.on("data", (d) => {
          text += d;
        });
        const code = await runCli(argv, { stdout, stderr, stdin: Readable.from([]), env, signal: AbortSignal.timeout(15_000) });
        return { status: code === 1 && /internal|unexpected/i.test(text) ? 500 : 200, text, rejected: code !== 0 };
      });
    }
    const ctx = (signedIn: boolean): OperatorContext => ({
      sql,
      sessionOperatorId: async () => (signedIn ? operatorId : null),
      requestHeaders: async () => new Headers(),
      trustedOrigins: [],
    });
    for (const c of uiCases(taskId)) {
      await check(`ui ${c.name}`, async () => {
        const request = new Request(`http://127.0.0.1/api/ui/tasks${c.path}`);
        const response =
          c.detail === undefined
            ? await handleTaskList(ctx(c.signedIn), request)
            : await handleTaskDetail(ctx(c.signedIn), request, c.detail);
        const text = await response.text();
        return { status: response.status, text, rejected: true };
      });
    }
    printCounts("bad-input corpus", counts);
    expect(failures).toEqual([]);
    expect(counts.cases).toBeGreaterThanOrEqual(200);
  });
});
