import type { SqlHandle } from "@runifold/store";

/**
 * Who performs an admin operation, for the audit trail and the engine's `actor` fields: a signed-in
 * operator (the console), a person at a shell (the CLI) or the demo seed.
 */
export type AdminActor =
  /** `tokenId`: acting through an operator API token (the admin HTTP API), recorded with each audit event. */
  | { kind: "operator"; id: string; email: string; tokenId?: string }
  | { kind: "cli"; user: string; host: string }
  | { kind: "seed" };

/** What every lib/admin operation runs with: the handle (pool or transaction) and the actor. */
export type AdminContext = { sql: SqlHandle; actor: AdminActor };

export const SEED_ACTOR: AdminActor = { kind: "seed" };

/** The actor as one string: `operator:<id>` (as run_inputs.answered_by records it), `cli:<user>@<host>`, or `seed`. */
export function actorLabel(actor: AdminActor): string {
  switch (actor.kind) {
    case "operator":
      return `operator:${actor.id}`;
    case "cli":
      return `cli:${actor.user}@${actor.host}`;
    case "seed":
      return "seed";
  }
}
