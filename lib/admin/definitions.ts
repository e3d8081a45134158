import type { InputRequest } from "@runifold/sdk";
import { findDefinition, listDefinitions } from "../../db/queries/definitions";
import { ONLINE_WORKER_SQL } from "../tasks";
import type { AdminContext } from "./actor";
import type { ResolveDefinition } from "./routes";

/** A definition as the console and the CLI list it. */
export type DefinitionSummary = {
  name: string;
  version: number;
  key: string;
  revision: number;
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
  preflightKeys: string[];
  /** What it declares it may ask ({input, approval}); null: not declared (it may ask anything). */
  asks: { input: boolean; approval: boolean } | null;
  fingerprint: string;
  firstSeenAt: string;
  lastSeenAt: string;
  /** Online workers serving this exact version now (0: runs of it wait until one comes back). */
  servedBy: number;
};

/** What workers have published, and which versions are served now (`runifold definitions list`). */
export async function listPublishedDefinitions(ctx: Pick<AdminContext, "sql">): Promise<DefinitionSummary[]> {
  const rows = await listDefinitions(ctx.sql, ONLINE_WORKER_SQL);
  return rows.map((row) => ({
    name: row.name,
    version: row.version,
    key: `${row.name}@${row.version}`,
    revision: row.revision,
    title: row.title,
    description: row.description,
    inputSchema: row.input_schema,
    preflightKeys: Object.keys(row.preflight ?? {}),
    asks: row.asks ?? null,
    fingerprint: row.fingerprint,
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
    servedBy: row.served_by,
  }));
}

/**
 * The resolver every composition root passes to route binding: the definition a worker published
 * for that exact name@version, read from the store (the web app, console and CLI never import
 * workflow code). Binding copies its input schema, preflight requests and revision onto the route.
 */
export function definitionsFromStore(sql: AdminContext["sql"]): ResolveDefinition {
  return async (name, version) => {
    const row = await findDefinition(sql, name, version);
    if (!row) return undefined;
    return {
      title: row.title,
      description: row.description,
      inputSchema: row.input_schema,
      preflight: row.preflight as Record<string, InputRequest>,
      revision: row.revision,
    };
  };
}
