import {
  type AnyWorkflow,
  cancelRun,
  createRun,
  DefinitionConflictError,
  defineWorkflow,
  describeDefinition,
  publishDefinitions,
  sendSignal,
} from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { auditedV1 } from "../fixtures/worker-modules/audited";
import { freshDatabase } from "../helpers/db";
import { waitForRunStatus } from "../helpers/runs";
import { registrationOf, runToExit, startWorker, stopWorker, WORKER_MODULES, type WorkerProcess } from "./worker-bin";

/**
 * The code of a name@version is part of what publishing guards (definitions/code-fingerprint.ts):
 * changed code under live runs is refused like a changed schema, unless the operator accepts it
 * (RUNIFOLD_ACCEPT_CODE_CHANGE); without live runs it is recorded as a new revision.
 */
const TENANT = "00000000-0000-4000-8000-0000000000d2";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'code-versions', 'Code versions')`;
});
afterAll(async () => {
  await db.drop();
});

const input = z.object({ n: z.number() });
/** Two builds of one definition: the same data, a step added in the second. */
function builds(name: string): [AnyWorkflow, AnyWorkflow] {
  const first = defineWorkflow({
    name,
    version: 1,
    input,
    async run(ctx) {
      await ctx.step("charge", () => 1);
      return { content: [] };
    },
  });
  const second = defineWorkflow({
    ...first,
    async run(ctx) {
      await ctx.step("check", () => true);
      await ctx.step("charge", () => 1);
      return { content: [] };
    },
  });
  return [first, second];
}

/** Publishing as a worker that runs the code does (serveWorkflows). */
const SERVES = { servesCode: true };

async function liveRun(name: string) {
  return createRun(sql, { tenantId: TENANT, workflowName: name, workflowVersion: 1, input: { n: 1 } });
}

function codeRevisions(name: string) {
  return sql<{ revision: number; fingerprint: string; code: string | null }[]>`
    SELECT revision, fingerprint, definition->>'codeFingerprint' AS code FROM workflow_definition_revisions
    WHERE name = ${name} AND version = 1 ORDER BY revision`;
}

describe("publishing changed code (SDK)", () => {
  it("keeps the data fingerprint apart from the code's, and one build publishes unchanged", async () => {
    const [first, second] = builds("steady-code");
    const a = describeDefinition(first);
    const b = describeDefinition(second);
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.codeFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(a.codeFingerprint).not.toBe(b.codeFingerprint);
    expect(await publishDefinitions(sql, [a], "w", SERVES)).toEqual([{ key: "steady-code@1", action: "published", revision: 1 }]);
    expect(await publishDefinitions(sql, [describeDefinition(first)], "w", SERVES)).toEqual([
      { key: "steady-code@1", action: "unchanged", revision: 1 },
    ]);
  });

  it("refuses changed code while the version has live runs; records it as a new revision once none are", async () => {
    const [first, second] = builds("coded");
    await publishDefinitions(sql, [describeDefinition(first)], "w", SERVES);
    const run = await liveRun("coded");
    const refusal = await publishDefinitions(sql, [describeDefinition(second)], "w", SERVES).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DefinitionConflictError);
    expect(refusal).toMatchObject({ key: "coded@1", what: "code" });
    expect((refusal as Error).message).toMatch(/^coded@1 is already published with different workflow code and has live runs/);
    expect((refusal as Error).message).toContain("Bump the version (e.g. coded@2)");
    expect((refusal as Error).message).toContain("RUNIFOLD_ACCEPT_CODE_CHANGE=coded@1");
    expect(await codeRevisions("coded")).toHaveLength(1);

    expect(await cancelRun(sql, { runId: run.id })).toEqual({ outcome: "cancelled" });
    expect(await publishDefinitions(sql, [describeDefinition(second)], "w", SERVES)).toEqual([
      { key: "coded@1", action: "replaced", revision: 2, code: "changed" },
    ]);
    const history = await codeRevisions("coded");
    expect(history.map((row) => row.code)).toEqual([
      describeDefinition(first).codeFingerprint,
      describeDefinition(second).codeFingerprint,
    ]);
    expect(history[0]?.fingerprint).toBe(history[1]?.fingerprint);
  });

  it("publishes changed code under live runs when the operator accepts it for that key (or *), and only code", async () => {
    const [first, second] = builds("accepted");
    await publishDefinitions(sql, [describeDefinition(first)], "w", SERVES);
    await liveRun("accepted");
    const other = await publishDefinitions(sql, [describeDefinition(second)], "w", {
      servesCode: true,
      acceptCodeChange: ["else@1"],
    }).catch((error: unknown) => error);
    expect(other).toMatchObject({ what: "code" });
    expect(
      await publishDefinitions(sql, [describeDefinition(second)], "w", { servesCode: true, acceptCodeChange: ["accepted@1"] }),
    ).toEqual([{ key: "accepted@1", action: "replaced", revision: 2, code: "accepted" }]);
    expect(
      await publishDefinitions(sql, [describeDefinition(first)], "w", { servesCode: true, acceptCodeChange: ["*"] }),
    ).toEqual([{ key: "accepted@1", action: "replaced", revision: 3, code: "accepted" }]);
    // Accepting code changes does not accept a changed schema.
    const schemaChanged = describeDefinition(defineWorkflow({ ...first, input: z.object({ n: z.number(), m: z.string() }) }));
    const refusal = await publishDefinitions(sql, [schemaChanged], "w", { servesCode: true, acceptCodeChange: ["*"] }).catch(
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ what: "definition" });
  });

  it("lets a publisher that does not run the code (a seed) publish the data without refusing or displacing the build", async () => {
    const [first, second] = builds("seeded");
    await publishDefinitions(sql, [describeDefinition(first)], "worker", SERVES);
    await liveRun("seeded");
    expect(await publishDefinitions(sql, [describeDefinition(second)], "seed")).toEqual([
      { key: "seeded@1", action: "unchanged", revision: 1 },
    ]);
    expect(await publishDefinitions(sql, [describeDefinition(first)], "worker", SERVES)).toEqual([
      { key: "seeded@1", action: "unchanged", revision: 1 },
    ]);
    // A seed publishing first records no code: the first worker's build is recorded without a refusal.
    const [fresh] = builds("seeded-first");
    await publishDefinitions(sql, [describeDefinition(fresh)], "seed");
    await liveRun("seeded-first");
    expect(await codeRevisions("seeded-first")).toEqual([expect.objectContaining({ code: null })]);
    expect(await publishDefinitions(sql, [describeDefinition(fresh)], "worker", SERVES)).toEqual([
      { key: "seeded-first@1", action: "replaced", revision: 2, code: "recorded" },
    ]);
  });

  it("records the first code fingerprint of a definition published before they existed, live runs or not", async () => {
    const [first, second] = builds("legacy");
    await publishDefinitions(sql, [describeDefinition(first)], "old-sdk", SERVES);
    await sql`UPDATE workflow_definition_revisions SET definition = definition - 'codeFingerprint' WHERE name = 'legacy'`;
    await liveRun("legacy");
    expect(await publishDefinitions(sql, [describeDefinition(second)], "w", SERVES)).toEqual([
      { key: "legacy@1", action: "replaced", revision: 2, code: "recorded" },
    ]);
    // From then on it is guarded like any other.
    const refusal = await publishDefinitions(sql, [describeDefinition(first)], "w", SERVES).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ what: "code" });
  });
});

describe("the code guard across worker processes", { timeout: 120_000 }, () => {
  const workers: WorkerProcess[] = [];
  const serve = (module: string, env: Record<string, string> = {}) => {
    const child = startWorker(["--workflows", `${WORKER_MODULES}/${module}`], { DATABASE_URL: db.url, ...env });
    workers.push(child);
    return child;
  };
  afterAll(async () => {
    await Promise.all(workers.map(stopWorker));
  });

  it("refuses a worker with changed code under a live run; accepted, the patched code takes the new path for that run", async () => {
    const v1 = serve("audited-v1.ts");
    await registrationOf(sql, v1);
    const live = await createRun(sql, {
      tenantId: TENANT,
      workflowName: "audited",
      workflowVersion: 1,
      input: { name: "Ada" },
      definition: auditedV1,
    });
    await waitForRunStatus(sql, live.id, "waiting_signal");

    const refused = await runToExit(["--workflows", `${WORKER_MODULES}/audited-patched.ts`], { DATABASE_URL: db.url });
    expect(refused.code, refused.output).toBe(3);
    expect(refused.output).toContain("runifold-worker: audited@1 is already published with different workflow code");
    expect(refused.output).toContain("RUNIFOLD_ACCEPT_CODE_CHANGE=audited@1");
    expect(await sql`SELECT 1 FROM worker_registrations WHERE pid = ${refused.pid}`).toHaveLength(0);
    expect(await codeRevisions("audited")).toHaveLength(1);

    // The operator accepts it (the change is behind ctx.patched), then retires the old build.
    const patched = serve("audited-patched.ts", { RUNIFOLD_ACCEPT_CODE_CHANGE: "audited@1" });
    await registrationOf(sql, patched);
    expect(await codeRevisions("audited")).toHaveLength(2);
    expect(await stopWorker(v1)).toBe(0);
    // The old build, restarted now, is refused in turn: its code is no longer the published one.
    const old = await runToExit(["--workflows", `${WORKER_MODULES}/audited-v1.ts`], { DATABASE_URL: db.url });
    expect(old.code, old.output).toBe(3);
    expect(old.output).toContain("different workflow code");

    // The run parked before the patch point: on resume it reaches it for the first time.
    expect(await sendSignal(sql, { runId: live.id, name: "go" })).toBe(true);
    await waitForRunStatus(sql, live.id, "completed");
    const [done] = await sql`SELECT payload FROM run_events WHERE run_id = ${live.id} AND type = 'completed'`;
    expect(done?.payload.result.structuredContent).toEqual({ name: "Ada", audited: true, pid: patched.pid });
    const keys = await sql`SELECT key FROM run_steps WHERE run_id = ${live.id} ORDER BY key`;
    expect(keys.map((row) => row.key)).toEqual(["audit", "patched:audit", "signal:go#0"]);
  });
});
