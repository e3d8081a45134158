import { randomUUID } from "node:crypto";
import type { SqlHandle } from "../../../../db/client";
import { jsonParam, PREPARED } from "../../../../db/sql";
import { CHANNELS } from "../channels";
import { InvalidWorkflowInput } from "../errors";
import { type AnyWorkflow, workflowKey } from "../workflow";
import { type RunRow, runColumns } from "./types";

export type CreateRunParams = {
  tenantId: string;
  workflowName: string;
  workflowVersion: number;
  input: unknown;
  routeId?: string | null;
  createdByKeyId?: string | null;
  origin?: "modern" | "legacy" | "ordinary" | "engine" | "operator";
  ttlMs?: number | null;
  pollIntervalMs?: number;
  /**
   * Input requests already answered before the run exists (MRTR rounds on tools/call): stored as
   * answered, so the workflow's ctx.requestInput for those keys returns at once.
   */
  answeredInputs?: Record<string, { request: unknown; response: unknown }>;
  /** When this process knows the workflow, its input schema is enforced before anything is written. */
  definition?: AnyWorkflow;
};

/**
 * Creates a run in one round trip: the row, its `created` event and the wake-up NOTIFY commit
 * together, so a returned run is already visible to every reader and claimable by any worker.
 */
export async function createRun(sql: SqlHandle, params: CreateRunParams): Promise<RunRow> {
  let input = params.input;
  if (params.definition) {
    const parsed = params.definition.input.safeParse(params.input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
      const summary = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
      throw new InvalidWorkflowInput(`Invalid input for ${params.workflowName}@${params.workflowVersion}: ${summary}`, issues);
    }
    input = parsed.data;
  }
  const key = workflowKey(params.workflowName, params.workflowVersion);
  const rows = await sql.unsafe<RunRow[]>(
    `WITH created AS (
       INSERT INTO runs (id, tenant_id, route_id, workflow_name, workflow_version, workflow_key, status, input,
                         created_by_key_id, origin, ttl_ms, poll_interval_ms, claimable_at, checkpoints)
       VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7::text::jsonb, $8, $9, $10, $11, now(), $13)
       RETURNING ${runColumns()}
     ), preanswered AS (
       INSERT INTO run_inputs (run_id, key, request, response, answered_by, answered_at)
       SELECT created.id, a.key, a.value->'request', a.value->'response', 'preflight', now()
       FROM created, jsonb_each($12::text::jsonb) AS a(key, value)
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'created', jsonb_build_object('workflow', workflow_key, 'origin', origin) FROM created
     )
     SELECT created.*, pg_notify('${CHANNELS.wake}', created.workflow_key) AS notified FROM created`,
    [
      randomUUID(),
      params.tenantId,
      params.routeId ?? null,
      params.workflowName,
      params.workflowVersion,
      key,
      jsonParam(input),
      params.createdByKeyId ?? null,
      params.origin ?? "engine",
      params.ttlMs ?? null,
      params.pollIntervalMs ?? 1000,
      jsonParam(params.answeredInputs ?? {}),
      params.answeredInputs && Object.keys(params.answeredInputs).length > 0 ? 1 : 0,
    ],
    PREPARED,
  );
  const run = rows[0];
  if (!run) throw new Error("run insert returned no row");
  return run;
}
