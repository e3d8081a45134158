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
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { greet } from "../fixtures/worker-modules/greet";
import { freshDatabase } from "../helpers/db";
import { waitForRunStatus } from "../helpers/runs";
import { registrationOf, runToExit, startWorker, stopWorker, WORKER_MODULES, type WorkerProcess } from "./worker-bin";

/**
 * Definitions in the store and the versioning guard: publishing through the SDK on one or two
 * connections, and through real worker processes serving the greet fixture modules
 * (tests/fixtures/worker-modules/greet*.ts).
 */
const TENANT = "00000000-0000-4000-8000-0000000000d1";

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  await sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'definitions', 'Definitions')`;
});
afterAll(async () => {
  await db.drop();
});

function workflow(name: string, input: z.ZodType, version = 1): AnyWorkflow {
  return defineWorkflow({
    name,
    version,
    input,
    async run() {
      return { content: [] };
    },
  });
}

type DefinitionRow = {
  revision: number;
  fingerprint: string;
  input_schema: Record<string, unknown>;
  published_by: string;
  first_seen_at: Date;
  last_seen_at: Date;
};

async function storedDefinition(name: string, version = 1): Promise<DefinitionRow | undefined> {
  const [row] = await sql<DefinitionRow[]>`
    SELECT revision, fingerprint, input_schema, published_by, first_seen_at, last_seen_at
    FROM workflow_definitions WHERE name = ${name} AND version = ${version}`;
  return row;
}

function revisions(handle: postgres.Sql, name: string) {
  return handle<{ revision: number; fingerprint: string; published_by: string; definition: Record<string, unknown> }[]>`
    SELECT revision, fingerprint, published_by, definition FROM workflow_definition_revisions
    WHERE name = ${name} AND version = 1 ORDER BY revision`;
}

describe("publishing definitions (SDK)", () => {
  it("publishing an unchanged definition again keeps its revision and only moves last_seen_at", async () => {
    const definition = workflow("steady", z.object({ a: z.string() }));
    expect(await publishDefinitions(sql, [describeDefinition(definition)], "worker-a")).toEqual([
      { key: "steady@1", action: "published", revision: 1 },
    ]);
    const first = await storedDefinition("steady");
    expect(await publishDefinitions(sql, [describeDefinition(definition)], "worker-b")).toEqual([
      { key: "steady@1", action: "unchanged", revision: 1 },
    ]);
    const second = await storedDefinition("steady");
    expect(second).toMatchObject({ revision: 1, fingerprint: first?.fingerprint, published_by: "worker-a" });
    expect(second?.first_seen_at).toEqual(first?.first_seen_at);
    expect(second?.last_seen_at.getTime()).toBeGreaterThan(first?.last_seen_at.getTime() ?? Number.POSITIVE_INFINITY);
    expect(await revisions(sql, "steady")).toHaveLength(1);
  });

  it("a changed definition without live runs (terminal ones only) replaces it as revision 2, recorded with the change", async () => {
    const before = describeDefinition(workflow("evolving", z.object({ a: z.string() })));
    const after = describeDefinition(workflow("evolving", z.object({ a: z.string(), b: z.number().default(0) })));
    await publishDefinitions(sql, [before], "worker-a");
    const first = await storedDefinition("evolving");
    // A finished run does not hold its version: only live runs do.
    const run = await createRun(sql, { tenantId: TENANT, workflowName: "evolving", workflowVersion: 1, input: { a: "x" } });
    expect(await cancelRun(sql, { runId: run.id })).toEqual({ outcome: "cancelled" });

    expect(await publishDefinitions(sql, [after], "worker-b")).toEqual([{ key: "evolving@1", action: "replaced", revision: 2 }]);
    const stored = await storedDefinition("evolving");
    expect(stored).toMatchObject({
      revision: 2,
      fingerprint: after.fingerprint,
      input_schema: after.inputSchema,
      published_by: "worker-b",
      first_seen_at: first?.first_seen_at,
    });
    const history = await revisions(sql, "evolving");
    expect(history.map(({ revision, fingerprint, published_by }) => ({ revision, fingerprint, published_by }))).toEqual([
      { revision: 1, fingerprint: before.fingerprint, published_by: "worker-a" },
      { revision: 2, fingerprint: after.fingerprint, published_by: "worker-b" },
    ]);
    expect(history[1]?.definition).toMatchObject({ name: "evolving", version: 1, inputSchema: after.inputSchema });
  });

  it("concurrent publishes of one new definition from two connections both succeed: one publishes, one finds it unchanged", async () => {
    const a = postgres(db.url, { max: 1, onnotice: () => {} });
    const b = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      await Promise.all([a`SELECT 1`, b`SELECT 1`]); // connected, so both publishes start together
      for (let round = 0; round < 10; round += 1) {
        const definition = describeDefinition(workflow(`raced-${round}`, z.object({ n: z.number() })));
        const outcomes = await Promise.all([
          publishDefinitions(a, [definition], "worker-a"),
          publishDefinitions(b, [definition], "worker-b"),
        ]);
        expect(outcomes.map(([outcome]) => outcome?.action).sort()).toEqual(["published", "unchanged"]);
        expect(await revisions(sql, `raced-${round}`)).toHaveLength(1);
      }
      // Two different first versions at once (no runs yet): one is revision 1, the other replaces it.
      const one = describeDefinition(workflow("raced-different", z.object({ n: z.number() })));
      const two = describeDefinition(workflow("raced-different", z.object({ s: z.string() })));
      const outcomes = await Promise.all([publishDefinitions(a, [one], "worker-a"), publishDefinitions(b, [two], "worker-b")]);
      expect(outcomes.map(([outcome]) => `${outcome?.action}:${outcome?.revision}`).sort()).toEqual([
        "published:1",
        "replaced:2",
      ]);
      expect(await revisions(sql, "raced-different")).toHaveLength(2);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });
});

describe("the versioning guard across worker processes", { timeout: 120_000 }, () => {
  const workers: WorkerProcess[] = [];
  const serve = (module: string, url: string) => {
    const child = startWorker(["--workflows", `${WORKER_MODULES}/${module}`], { DATABASE_URL: url });
    workers.push(child);
    return child;
  };
  afterAll(async () => {
    await Promise.all(workers.map(stopWorker));
  });

  it("refuses a changed definition under a live name@version (SDK and bin: 'Bump the version'); allows it once the run is over", async () => {
    const store = await freshDatabase();
    try {
      await store.sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'guard', 'Guard')`;
      const v1Worker = serve("greet-v1.ts", store.url);
      await registrationOf(store.sql, v1Worker);
      const live = await createRun(store.sql, {
        tenantId: TENANT,
        workflowName: "greet",
        workflowVersion: 1,
        input: { name: "Ada", wait: true },
        definition: greet(1, { formal: false }),
      });
      await waitForRunStatus(store.sql, live.id, "waiting_signal");
      const [published] = await store.sql<
        { fingerprint: string }[]
      >`SELECT fingerprint FROM workflow_definitions WHERE name = 'greet'`;

      const changed = describeDefinition(greet(1, { formal: true }));
      const refusal = await publishDefinitions(store.sql, [changed], "test").catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(DefinitionConflictError);
      expect((refusal as Error).message).toMatch(/^greet@1 is already published with a different definition and has live runs/);
      expect((refusal as Error).message).toContain("Bump the version (e.g. greet@2)");

      const { code, output, pid } = await runToExit(["--workflows", `${WORKER_MODULES}/greet-v1-changed.ts`], {
        DATABASE_URL: store.url,
      });
      expect(code, output).toBe(3);
      expect(output).toContain("runifold-worker: greet@1 is already published with a different definition");
      expect(output).toContain("Bump the version");
      expect(await store.sql`SELECT 1 FROM worker_registrations WHERE pid = ${pid}`).toHaveLength(0);

      // Nothing moved: the stored definition and the live run are as they were.
      const stored = await store.sql`SELECT revision, fingerprint FROM workflow_definitions WHERE name = 'greet' AND version = 1`;
      expect(stored).toEqual([{ revision: 1, fingerprint: published?.fingerprint }]);
      expect(await store.sql`SELECT status FROM runs WHERE id = ${live.id}`).toEqual([{ status: "waiting_signal" }]);

      // The run finishes on the definition it started under; then the version is free to change.
      expect(await sendSignal(store.sql, { runId: live.id, name: "go" })).toBe(true);
      await waitForRunStatus(store.sql, live.id, "completed");
      expect(await stopWorker(v1Worker)).toBe(0);
      expect(await publishDefinitions(store.sql, [changed], "test")).toEqual([
        { key: "greet@1", action: "replaced", revision: 2 },
      ]);
      const history = await store.sql`SELECT revision FROM workflow_definition_revisions WHERE name = 'greet' ORDER BY revision`;
      expect(history).toEqual([{ revision: 1 }, { revision: 2 }]);
    } finally {
      await store.drop();
    }
  });

  it("a bumped version runs beside the old one: each run is claimed by the worker serving its version and completes on it", async () => {
    const store = await freshDatabase();
    try {
      await store.sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'bump', 'Bump')`;
      const v1Worker = serve("greet-v1.ts", store.url);
      const v1 = await registrationOf(store.sql, v1Worker);
      const create = (version: 1 | 2, input: Record<string, unknown>) =>
        createRun(store.sql, {
          tenantId: TENANT,
          workflowName: "greet",
          workflowVersion: version,
          input,
          definition: greet(version, { formal: version === 2 }),
        });
      // A live greet@1 run while greet@2 is published: a new version never conflicts with the old one.
      const waiting = await create(1, { name: "Ada", wait: true });
      await waitForRunStatus(store.sql, waiting.id, "waiting_signal");
      const v2Worker = serve("greet-v2.ts", store.url);
      const v2 = await registrationOf(store.sql, v2Worker);
      expect(v1.workflows).toEqual(["greet@1"]);
      expect(v2.workflows).toEqual(["greet@2"]);

      const runs = [
        waiting,
        ...(await Promise.all([1, 2, 3].map((i) => create(1, { name: `one-${i}` })))),
        ...(await Promise.all([1, 2, 3].map((i) => create(2, { name: `two-${i}`, formal: i === 1 })))),
      ];
      expect(await sendSignal(store.sql, { runId: waiting.id, name: "go" })).toBe(true);
      for (const run of runs) await waitForRunStatus(store.sql, run.id, "completed", 30_000);

      const servedBy = { 1: { worker: v1.id, pid: v1Worker.pid }, 2: { worker: v2.id, pid: v2Worker.pid } } as const;
      for (const run of runs) {
        const expected = servedBy[run.workflow_version as 1 | 2];
        const claims = await store.sql`
          SELECT payload->>'worker' AS worker FROM run_events WHERE run_id = ${run.id} AND type = 'leased'`;
        expect(claims.length).toBeGreaterThan(0);
        expect(new Set(claims.map((claim) => claim.worker))).toEqual(new Set([expected.worker]));
        const [done] = await store.sql`SELECT payload FROM run_events WHERE run_id = ${run.id} AND type = 'completed'`;
        expect(done?.payload.result.structuredContent).toEqual({ version: run.workflow_version, pid: expected.pid });
      }
      const texts = await store.sql`
        SELECT r.input->>'name' AS name, e.payload->'result'->'content'->0->>'text' AS text
        FROM runs r JOIN run_events e ON e.run_id = r.id AND e.type = 'completed' ORDER BY name`;
      expect(texts).toEqual([
        { name: "Ada", text: "Hello, Ada (v1)" },
        { name: "one-1", text: "Hello, one-1 (v1)" },
        { name: "one-2", text: "Hello, one-2 (v1)" },
        { name: "one-3", text: "Hello, one-3 (v1)" },
        { name: "two-1", text: "Good day, two-1 (v2)" },
        { name: "two-2", text: "Hello, two-2 (v2)" },
        { name: "two-3", text: "Hello, two-3 (v2)" },
      ]);

      const definitions = await store.sql`
        SELECT version, revision, published_by, input_schema FROM workflow_definitions WHERE name = 'greet' ORDER BY version`;
      expect(definitions).toMatchObject([
        {
          version: 1,
          revision: 1,
          published_by: v1.id,
          input_schema: describeDefinition(greet(1, { formal: false })).inputSchema,
        },
        {
          version: 2,
          revision: 1,
          published_by: v2.id,
          input_schema: describeDefinition(greet(2, { formal: true })).inputSchema,
        },
      ]);
      expect(await Promise.all([stopWorker(v1Worker), stopWorker(v2Worker)])).toEqual([0, 0]);
    } finally {
      await store.drop();
    }
  });
});
