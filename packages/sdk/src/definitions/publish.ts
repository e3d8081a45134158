import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";
import { TERMINAL_STATUSES_SQL } from "../states";
import { workflowKey } from "../workflow";
import type { PublishedDefinition } from "./describe";

/** A worker tried to change what a `name@version` means while runs of that version are live. */
export class DefinitionConflictError extends Error {
  override name = "DefinitionConflictError";
  constructor(readonly key: string) {
    super(
      `${key} is already published with a different definition and has live runs: changing it would change ` +
        `running work under them. Bump the version (e.g. ${key.replace(/@\d+$/, "")}@${Number(key.split("@")[1]) + 1}) ` +
        "and serve both until the old runs finish.",
    );
  }
}

export type PublishOutcome = { key: string; action: "published" | "unchanged" | "replaced"; revision: number };

/**
 * Publishes each definition a worker serves. Per definition, under the row lock of its
 * `name@version`: new → revision 1; same fingerprint → only `last_seen_at`; different fingerprint →
 * refused while the version has live (non-terminal) runs, else replaced as the next revision and
 * recorded in workflow_definition_revisions. The live-run probe scans runs by workflow_key without
 * an index of its own: it runs only when a definition actually changed, at worker start.
 */
export async function publishDefinitions(
  sql: SqlHandle,
  definitions: PublishedDefinition[],
  publishedBy: string,
): Promise<PublishOutcome[]> {
  // One transaction for the whole set: a worker refused for one definition publishes none of them.
  return inTransaction(sql, async (tx) => {
    const outcomes: PublishOutcome[] = [];
    // Locks are taken in key order, so publishers with overlapping sets never deadlock.
    const ordered = [...definitions].sort((a, b) => workflowKey(a.name, a.version).localeCompare(workflowKey(b.name, b.version)));
    for (const definition of ordered) outcomes.push(await publishOne(tx, definition, publishedBy));
    return outcomes;
  });
}

async function publishOne(tx: SqlHandle, d: PublishedDefinition, publishedBy: string): Promise<PublishOutcome> {
  const key = workflowKey(d.name, d.version);
  // Serialises concurrent publishers of one name@version, including the very first insert.
  await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext('runifold_definition:' || $1))", [key]);
  const [current] = await tx.unsafe<{ fingerprint: string; revision: number }[]>(
    "SELECT fingerprint, revision FROM workflow_definitions WHERE name = $1 AND version = $2 FOR UPDATE",
    [d.name, d.version],
  );
  if (current && current.fingerprint === d.fingerprint) {
    await tx.unsafe("UPDATE workflow_definitions SET last_seen_at = now() WHERE name = $1 AND version = $2", [d.name, d.version]);
    return { key, action: "unchanged", revision: current.revision };
  }
  if (current) {
    const live = await tx.unsafe(
      `SELECT 1 FROM runs WHERE workflow_key = $1 AND status NOT IN ${TERMINAL_STATUSES_SQL} LIMIT 1`,
      [key],
    );
    if (live.length > 0) throw new DefinitionConflictError(key);
  }
  const revision = (current?.revision ?? 0) + 1;
  const params = [
    d.name,
    d.version,
    revision,
    d.title,
    d.description,
    jsonParam(d.inputSchema),
    d.outputSchema === null ? null : jsonParam(d.outputSchema),
    jsonParam(d.preflight),
    d.fingerprint,
    publishedBy,
    d.asks === null || d.asks === undefined ? null : jsonParam(d.asks),
  ];
  await tx.unsafe(
    `INSERT INTO workflow_definitions (name, version, revision, title, description, input_schema, output_schema, preflight,
                                       fingerprint, published_by, asks)
     VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb, $8::text::jsonb, $9, $10, $11::text::jsonb)
     ON CONFLICT (name, version) DO UPDATE SET revision = EXCLUDED.revision, title = EXCLUDED.title,
       description = EXCLUDED.description, input_schema = EXCLUDED.input_schema, output_schema = EXCLUDED.output_schema,
       preflight = EXCLUDED.preflight, asks = EXCLUDED.asks, fingerprint = EXCLUDED.fingerprint, published_by = EXCLUDED.published_by,
       last_seen_at = now()`,
    params,
  );
  await tx.unsafe(
    `INSERT INTO workflow_definition_revisions (name, version, revision, fingerprint, definition, published_by)
     VALUES ($1, $2, $3, $4, $5::text::jsonb, $6)`,
    [d.name, d.version, revision, d.fingerprint, jsonParam(d), publishedBy],
  );
  return { key, action: current ? "replaced" : "published", revision };
}
