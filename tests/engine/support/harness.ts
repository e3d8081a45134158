import {
  type AnyWorkflow,
  type CreateRunParams,
  createRegistry,
  createRun,
  createWorker,
  silentLogger,
  type Worker,
} from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, afterEach, beforeAll } from "vitest";
import { STEP_LOG_DDL } from "../../fixtures/engine-workflows";
import { freshDatabase } from "../../helpers/db";
import { waitFor } from "../../helpers/wait-for";

type RunView = {
  status: string;
  attempt: number;
  lost_attempts: number;
  failure: Record<string, unknown> | null;
  status_message: string | null;
};

export const TENANT = "00000000-0000-4000-8000-00000000e001";

/**
 * One engine test file's store: a fresh database with a tenant and the step log, in-process workers
 * that are stopped after each test, and the reads the tests assert on.
 */
export function engineStore() {
  const store = {} as {
    sql: postgres.Sql;
    url: string;
    drop(): Promise<void>;
  };
  const workers: Worker[] = [];

  beforeAll(async () => {
    const db = await freshDatabase();
    Object.assign(store, db);
    process.env.DATABASE_URL = db.url; // the fixture workflows' step log connects here
    await db.sql.unsafe(STEP_LOG_DDL);
    await db.sql`INSERT INTO tenants (id, slug, name) VALUES (${TENANT}, 'engine', 'Engine')`;
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop(500)));
  });
  afterAll(async () => {
    await store.drop();
  });

  const helpers = {
    get sql() {
      return store.sql;
    },
    get url() {
      return store.url;
    },
    async startWorker(
      workflows: AnyWorkflow[],
      options: { leaseMs?: number; pollMs?: number; strandedAfterMs?: number; tenantShare?: number } = {},
    ) {
      const worker = createWorker({
        sql: store.sql,
        registry: createRegistry(workflows),
        logger: silentLogger,
        leaseMs: options.leaseMs ?? 5_000,
        pollMs: options.pollMs ?? 50,
        strandedAfterMs: options.strandedAfterMs,
        tenantShare: options.tenantShare,
      });
      workers.push(worker);
      await worker.start();
      return worker;
    },
    create(definition: AnyWorkflow, input: unknown, extra: Partial<CreateRunParams> = {}) {
      return createRun(store.sql, {
        tenantId: TENANT,
        workflowName: definition.name,
        workflowVersion: definition.version,
        input,
        definition,
        ...extra,
      });
    },
    async run(id: string): Promise<RunView | undefined> {
      const [row] = await store.sql<
        RunView[]
      >`SELECT status, attempt, lost_attempts, failure, status_message FROM runs WHERE id = ${id}`;
      return row;
    },
    waitForStatus(id: string, status: string | string[], timeoutMs = 20_000) {
      const wanted = Array.isArray(status) ? status : [status];
      return waitFor(
        () => helpers.run(id),
        (row): row is RunView => row !== undefined && wanted.includes(row.status),
        { describe: `run ${id} to be ${wanted.join(" or ")}`, timeoutMs },
      );
    },
    async terminalPayload(id: string) {
      const [event] = await store.sql<{ type: string; payload: Record<string, unknown> }[]>`
        SELECT type, payload FROM run_events WHERE run_id = ${id} AND type IN ('completed', 'failed', 'cancelled')`;
      return event;
    },
    async events(id: string, type: string) {
      return store.sql<{ payload: Record<string, unknown> }[]>`
        SELECT payload FROM run_events WHERE run_id = ${id} AND type = ${type} ORDER BY id`;
    },
    async stepRuns(id: string, key: string) {
      return Number((await store.sql`SELECT count(*) AS n FROM step_log WHERE run_id = ${id} AND key = ${key}`)[0]?.n);
    },
  };
  return helpers;
}
