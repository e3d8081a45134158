import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";
import { TERMINAL_STATUSES_SQL } from "../states";
import { workflowKey } from "../workflow";
import type { PublishedDefinition } from "./describe";

/**
 * A worker tried to change what a `name@version` means while runs of that version are live: its
 * definition (`what: "definition"`), or only its code (`what: "code"`, code-fingerprint.ts).
 */
export class DefinitionConflictError extends Error {
  override name = "DefinitionConflictError";
  constructor(
    readonly key: string,
    readonly what: "definition" | "code" = "definition",
  ) {
    const bump = `Bump the version (e.g. ${key.replace(/@\d+$/, "")}@${Number(key.split("@")[1]) + 1}) and serve both until the old runs finish`;
    super(
      what === "definition"
        ? `${key} is already published with a different definition and has live runs: changing it would change ` +
            `running work under them. ${bump}.`
        : `${key} is already published with different workflow code and has live runs, which would replay their history ` +
            `against this code (a step added, removed or renamed fails them as non-determinism). ${bump}; or, if the ` +
            `change is safe for runs under way (guarded by ctx.patched, or no change to which operations run), accept ` +
            `it with RUNIFOLD_ACCEPT_CODE_CHANGE=${key} (docs/authoring.md, "Versioning").`,
    );
  }
}

export type PublishOutcome = {
  key: string;
  action: "published" | "unchanged" | "replaced";
  revision: number;
  /**
   * Set when a revision was written for the code alone: "changed" (no live runs), "accepted" (live
   * runs, accepted by the operator), "recorded" (the first code fingerprint of a definition
   * published before they existed: nothing to compare it with).
   */
  code?: "changed" | "accepted" | "recorded";
};

export type PublishOptions = {
  /**
   * The publisher is a worker that runs this code (serveWorkflows): its code fingerprint is compared
   * and recorded. Other publishers (a seed, a script, a test) vouch for the data only: the code
   * fingerprint on record is kept as it is, so they never refuse or displace a worker's build.
   */
  servesCode?: boolean;
  /** `name@version` keys whose code may change under live runs (RUNIFOLD_ACCEPT_CODE_CHANGE); `*`: any. */
  acceptCodeChange?: readonly string[];
};

/**
 * Publishes each definition a worker serves. Per definition, under the row lock of its
 * `name@version`: new → revision 1; same fingerprint and code fingerprint → only `last_seen_at`;
 * a different fingerprint → refused while the version has live (non-terminal) runs, else replaced
 * as the next revision and recorded in workflow_definition_revisions. Different code alone is
 * refused the same way unless the key is in `acceptCodeChange`. The live-run probe scans runs by
 * workflow_key without an index of its own: it runs only when something changed, at worker start.
 *
 * The code fingerprint lives in the revision's `definition` (no column of its own), so the current
 * one is read from the current revision. A definition published before code fingerprints existed
 * has none: its first one is recorded as a new revision without a refusal — there is nothing to
 * compare it with, which is how every code change was treated before.
 */
export async function publishDefinitions(
  sql: SqlHandle,
  definitions: PublishedDefinition[],
  publishedBy: string,
  options: PublishOptions = {},
): Promise<PublishOutcome[]> {
  // One transaction for the whole set: a worker refused for one definition publishes none of them.
  return inTransaction(sql, async (tx) => {
    const outcomes: PublishOutcome[] = [];
    // Locks are taken in key order, so publishers with overlapping sets never deadlock.
    const ordered = [...definitions].sort((a, b) => workflowKey(a.name, a.version).localeCompare(workflowKey(b.name, b.version)));
    for (const definition of ordered) outcomes.push(await publishOne(tx, definition, publishedBy, options));
    return outcomes;
  });
}

async function publishOne(
  tx: SqlHandle,
  given: PublishedDefinition,
  publishedBy: string,
  options: PublishOptions,
): Promise<PublishOutcome> {
  const key = workflowKey(given.name, given.version);
  // Serialises concurrent publishers of one name@version, including the very first insert.
  await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext('runifold_definition:' || $1))", [key]);
  const [current] = await tx.unsafe<{ fingerprint: string; revision: number; code_fingerprint: string | null }[]>(
    `SELECT d.fingerprint, d.revision, r.definition->>'codeFingerprint' AS code_fingerprint
     FROM workflow_definitions d
     LEFT JOIN workflow_definition_revisions r ON r.name = d.name AND r.version = d.version AND r.revision = d.revision
     WHERE d.name = $1 AND d.version = $2 FOR UPDATE OF d`,
    [given.name, given.version],
  );
  const sameData = current?.fingerprint === given.fingerprint;
  // A publisher that does not serve the code carries the recorded code fingerprint forward (none for a new definition).
  const d: Omit<PublishedDefinition, "codeFingerprint"> & { codeFingerprint?: string } =
    options.servesCode === true ? given : { ...given, codeFingerprint: current?.code_fingerprint ?? undefined };
  const codeChanged = current !== undefined && current.code_fingerprint !== (d.codeFingerprint ?? null);
  if (current && sameData && !codeChanged) {
    await tx.unsafe("UPDATE workflow_definitions SET last_seen_at = now() WHERE name = $1 AND version = $2", [d.name, d.version]);
    return { key, action: "unchanged", revision: current.revision };
  }
  let code: PublishOutcome["code"];
  if (current && sameData && current.code_fingerprint === null) code = "recorded";
  else if (current) {
    const live = await tx.unsafe(
      `SELECT 1 FROM runs WHERE workflow_key = $1 AND status NOT IN ${TERMINAL_STATUSES_SQL} LIMIT 1`,
      [key],
    );
    const accepted = options.acceptCodeChange?.some((entry) => entry === "*" || entry === key) === true;
    if (live.length > 0 && !sameData) throw new DefinitionConflictError(key, "definition");
    if (live.length > 0 && !accepted) throw new DefinitionConflictError(key, "code");
    if (sameData) code = live.length > 0 ? "accepted" : "changed";
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
    // A publisher that predates these options sends neither (e.g. a definition read back from the store).
    d.concurrency === null || d.concurrency === undefined ? null : jsonParam(d.concurrency),
    d.priority ?? 0,
  ];
  await tx.unsafe(
    `INSERT INTO workflow_definitions (name, version, revision, title, description, input_schema, output_schema, preflight,
                                       fingerprint, published_by, asks, concurrency, priority)
     VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb, $8::text::jsonb, $9, $10, $11::text::jsonb,
             $12::text::jsonb, $13)
     ON CONFLICT (name, version) DO UPDATE SET revision = EXCLUDED.revision, title = EXCLUDED.title,
       description = EXCLUDED.description, input_schema = EXCLUDED.input_schema, output_schema = EXCLUDED.output_schema,
       preflight = EXCLUDED.preflight, asks = EXCLUDED.asks,
       concurrency = EXCLUDED.concurrency, priority = EXCLUDED.priority, fingerprint = EXCLUDED.fingerprint, published_by = EXCLUDED.published_by,
       last_seen_at = now()`,
    params,
  );
  await tx.unsafe(
    `INSERT INTO workflow_definition_revisions (name, version, revision, fingerprint, definition, published_by)
     VALUES ($1, $2, $3, $4, $5::text::jsonb, $6)`,
    [d.name, d.version, revision, d.fingerprint, jsonParam(d), publishedBy],
  );
  return { key, action: current ? "replaced" : "published", revision, ...(code ? { code } : {}) };
}
