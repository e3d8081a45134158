import type { SqlHandle } from "@runifold/store";

/** A workflow definition as a worker published it (db/schema/definitions.ts). */
export type DefinitionRow = {
  name: string;
  version: number;
  revision: number;
  title: string | null;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown> | null;
  preflight: Record<string, unknown>;
  /** What the workflow declares it may ask; null: not declared. */
  asks: { input: boolean; approval: boolean } | null;
  fingerprint: string;
  first_seen_at: Date;
  last_seen_at: Date;
  published_by: string;
};

const COLUMNS = `d.name, d.version, d.revision, d.title, d.description, d.input_schema, d.output_schema, d.preflight, d.asks,
  d.fingerprint, d.first_seen_at, d.last_seen_at, d.published_by`;

/** One definition by its exact name and version (the primary key). */
export async function findDefinition(sql: SqlHandle, name: string, version: number): Promise<DefinitionRow | undefined> {
  const rows = await sql.unsafe<DefinitionRow[]>(
    `SELECT ${COLUMNS} FROM workflow_definitions d WHERE d.name = $1 AND d.version = $2`,
    [name, version],
  );
  return rows[0];
}

/**
 * Every published definition, by name then version, with whether a worker online now serves it.
 * `onlineWorkerSql` is the caller's definition of "online" as a predicate on worker_registrations
 * `w` (the read models own that rule; storage does not).
 */
export async function listDefinitions(
  sql: SqlHandle,
  onlineWorkerSql: string,
): Promise<(DefinitionRow & { served_by: number })[]> {
  return sql.unsafe(
    `SELECT ${COLUMNS},
            (SELECT count(*)::int FROM worker_registrations w
             WHERE ${onlineWorkerSql} AND (d.name || '@' || d.version) = ANY(w.workflows)) AS served_by
     FROM workflow_definitions d ORDER BY d.name, d.version`,
  );
}
