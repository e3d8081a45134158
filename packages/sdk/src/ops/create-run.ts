import { randomUUID } from "node:crypto";
import { SpanKind } from "@opentelemetry/api";
import { jsonParam, PREPARED, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { InvalidWorkflowInput } from "../errors";
import { UNSTORABLE_TEXT, unstorableTextPath } from "../json-value";
import { captureTraceContext, inSpan } from "../telemetry/spans";
import { type AnyWorkflow, workflowKey } from "../workflow";
import { parseWorkflowInput, storedInput } from "../workflow-input";
import { isPool, notifyAfterCommit, soleWrite } from "./notify-after-commit";
import { type RunRow, runColumns } from "./types";

/** How long an idempotency key returns its run unless the caller says otherwise: one day. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;

export type IdempotencyOptions = {
  /** The caller's key: the same tenant, scope and key return the run first created with it. 1-255 characters. */
  key: string;
  /** Where the key is unique within the tenant. Default: `workflow:<name@version>`. */
  scope?: string;
  /** How long the key holds; afterwards it starts a new run. Default one day. */
  ttlMs?: number;
};

export type CreateRunParams = {
  tenantId: string;
  workflowName: string;
  workflowVersion: number;
  input: unknown;
  routeId?: string | null;
  createdByKeyId?: string | null;
  origin?: "modern" | "legacy" | "ordinary" | "engine" | "operator" | "schedule";
  ttlMs?: number | null;
  pollIntervalMs?: number;
  /**
   * Input requests already answered before the run exists (MRTR rounds on tools/call): stored as
   * answered, so the workflow's ctx.requestInput for those keys returns at once.
   */
  answeredInputs?: Record<string, { request: unknown; response: unknown }>;
  /** When this process knows the workflow, its input schema is enforced before anything is written. */
  definition?: AnyWorkflow;
  /** The run's own timeout from now; default the definition's `timeoutMs` (when known). */
  timeoutMs?: number;
  /** Create at most once per key (docs/architecture.md, "Idempotent creation"). */
  idempotency?: IdempotencyOptions;
  /** A child run (ctx.child, ops/start-child.ts): the run that starts it and the history key of that start. */
  parent?: { runId: string; key: string };
};

/** The run, and whether this call created it (false: an idempotency key returned an existing run). */
export type CreatedRun = RunRow & { created: boolean };

/**
 * Creates a run in one round trip: the row and its `created` event commit together, so a returned
 * run is already visible to every reader and claimable by any worker. The workers' wake-up NOTIFY
 * follows the commit when other creates are in flight on the same pool (notify-after-commit.ts: a
 * NOTIFY inside each would serialise their commits), and is sent at commit otherwise.
 * With an idempotency key, the key row is claimed in the same statement (an expired key is taken
 * over); when another run holds it, nothing is written and that run is returned (a second read).
 */
export async function createRun(sql: SqlHandle, params: CreateRunParams): Promise<CreatedRun> {
  const attributes = {
    "runifold.workflow": workflowKey(params.workflowName, params.workflowVersion),
    "runifold.tenant_id": params.tenantId,
  };
  return inSpan("runifold.run.create", { kind: SpanKind.PRODUCER, attributes }, async (span) => {
    const run = await createRunOnce(sql, params, true);
    span.setAttributes({ "runifold.run_id": run.id, "runifold.run.created": run.created });
    return run;
  });
}

async function createRunOnce(sql: SqlHandle, params: CreateRunParams, mayRetry: boolean): Promise<CreatedRun> {
  const key = workflowKey(params.workflowName, params.workflowVersion);
  // Stored as the caller sent it (its JSON round trip); each attempt parses it once (executor.ts).
  // With the definition at hand, what will be stored is parsed now, so a bad input writes nothing.
  const input = storedInput(params.input, key);
  if (params.definition) parseWorkflowInput(params.definition, key, input.value);
  refuseUnstorableAnswers(params, key);
  const timeoutMs = params.timeoutMs ?? params.definition?.timeoutMs ?? null;
  if (timeoutMs !== null && !(Number.isFinite(timeoutMs) && timeoutMs > 0))
    throw new Error("timeoutMs must be a positive number");
  const idempotency = params.idempotency ? checkedIdempotency(params.idempotency, key) : null;
  const id = randomUUID();
  const traceContext = captureTraceContext();
  // Inline NOTIFY inside a caller's transaction, or when this is the pool's only create in flight;
  // otherwise after the commit, coalesced with the others (notify-after-commit.ts).
  const write = soleWrite(sql);
  const later = isPool(sql) && !write.sole;
  const rows = await sql
    .unsafe<RunRow[]>(
      `WITH claimed_key AS (
       INSERT INTO run_idempotency_keys (tenant_id, scope, key, run_id, expires_at)
       SELECT $2, $15, $16, $1, now() + make_interval(secs => $17::float8 / 1000.0) WHERE $16::text IS NOT NULL
       ON CONFLICT (tenant_id, scope, key) DO UPDATE SET run_id = EXCLUDED.run_id, expires_at = EXCLUDED.expires_at, created_at = now()
         WHERE run_idempotency_keys.expires_at <= now()
       RETURNING run_id
     ), created AS (
       INSERT INTO runs (id, tenant_id, route_id, workflow_name, workflow_version, workflow_key, status, input,
                         created_by_key_id, origin, ttl_ms, poll_interval_ms, claimable_at, checkpoints, deadline_at, trace_context,
                         parent_run_id, parent_key)
       SELECT $1, $2, $3, $4, $5, $6, 'queued', $7::text::jsonb, $8, $9, $10, $11, now(), $13,
              CASE WHEN $14::float8 IS NOT NULL THEN now() + make_interval(secs => $14::float8 / 1000.0) END, $18::text::jsonb,
              $20::uuid, $21::text
       WHERE $16::text IS NULL OR EXISTS (SELECT 1 FROM claimed_key)
       RETURNING ${runColumns()}
     ), preanswered AS (
       INSERT INTO run_inputs (run_id, key, request, response, answered_by, answered_at)
       SELECT created.id, a.key, a.value->'request', a.value->'response', 'preflight', now()
       FROM created, jsonb_each($12::text::jsonb) AS a(key, value)
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'created', jsonb_strip_nulls(jsonb_build_object('workflow', workflow_key, 'origin', origin, 'idempotencyKey', $16::text))
       FROM created
     )
     SELECT created.*, CASE WHEN $19::boolean THEN pg_notify('${CHANNELS.wake}', created.workflow_key) END AS notified
     FROM created`,
      [
        id,
        params.tenantId,
        params.routeId ?? null,
        params.workflowName,
        params.workflowVersion,
        key,
        input.text,
        params.createdByKeyId ?? null,
        params.origin ?? "engine",
        params.ttlMs ?? null,
        params.pollIntervalMs ?? 1000,
        jsonParam(params.answeredInputs ?? {}),
        params.answeredInputs && Object.keys(params.answeredInputs).length > 0 ? 1 : 0,
        timeoutMs,
        idempotency?.scope ?? null,
        idempotency?.key ?? null,
        idempotency?.ttlMs ?? null,
        // The creation span's context (tracing on): each attempt's span becomes its child (telemetry/attempt-telemetry.ts).
        traceContext === null ? null : jsonParam(traceContext),
        !later,
        params.parent?.runId ?? null,
        params.parent?.key ?? null,
      ],
      PREPARED,
    )
    .finally(write.done);
  const run = rows[0];
  if (run) {
    if (later) notifyAfterCommit(sql, CHANNELS.wake, key);
    return { ...run, created: true };
  }
  if (!idempotency) throw new Error("run insert returned no row");
  // Another run holds the key. Read it in a new statement: the one above could not see a run that a
  // concurrent creator committed while this insert waited on the key.
  const existing = await sql.unsafe<(RunRow & { held_by: string })[]>(
    `SELECT k.run_id AS held_by, ${runColumns("r")} FROM run_idempotency_keys k LEFT JOIN runs r ON r.id = k.run_id
     WHERE k.tenant_id = $1 AND k.scope = $2 AND k.key = $3`,
    [params.tenantId, idempotency.scope, idempotency.key],
  );
  const found = existing[0];
  if (found?.id) {
    const { held_by: _, ...row } = found;
    return { ...row, created: false };
  }
  if (!mayRetry) throw new Error("idempotency key is held by a run that could not be read; retry the call");
  // The key's run is gone (purged by retention before the key expired): the key is free again.
  if (found) {
    await sql.unsafe(
      `UPDATE run_idempotency_keys SET expires_at = now() WHERE tenant_id = $1 AND scope = $2 AND key = $3 AND run_id = $4
         AND NOT EXISTS (SELECT 1 FROM runs WHERE id = $4)`,
      [params.tenantId, idempotency.scope, idempotency.key, found.held_by],
    );
  }
  return createRunOnce(sql, params, false);
}

/**
 * A preflight answer holding text jsonb refuses (U+0000, an unpaired surrogate) is the caller's
 * mistake: refused like an invalid input, naming the field, before any SQL (the statement would
 * fail with a raw "unsupported Unicode escape sequence"). The input itself: workflow-input.ts.
 */
function refuseUnstorableAnswers(params: CreateRunParams, workflow: string) {
  for (const [key, answer] of Object.entries(params.answeredInputs ?? {})) {
    const at = unstorableTextPath(answer);
    if (at === undefined) continue;
    const message = `preflight answer "${key}"${at === "" ? "" : ` at ${at}`}: ${UNSTORABLE_TEXT}`;
    throw new InvalidWorkflowInput(`Invalid input for ${workflow}: ${message}`, [{ path: at, message: UNSTORABLE_TEXT }]);
  }
}

function checkedIdempotency(options: IdempotencyOptions, workflow: string): Required<IdempotencyOptions> {
  if (typeof options.key !== "string" || options.key.length < 1 || options.key.length > 255)
    throw new Error("idempotency key must be 1-255 characters");
  const ttlMs = options.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  if (!(Number.isFinite(ttlMs) && ttlMs > 0)) throw new Error("idempotency ttlMs must be a positive number");
  return { key: options.key, scope: options.scope ?? `workflow:${workflow}`, ttlMs };
}
