import { createLogger } from "@runifold/sdk";
import { isUuid, PREPARED, type SqlHandle } from "@runifold/store";
import { insertAuditEvent } from "../../db/queries/audit-events";

/**
 * Audit of refused task lookups (security review L6, research requirement 23): a task handle call
 * (tasks/get, tasks/result, tasks/cancel, tasks/update, the HTTP signal API) naming a task that
 * exists but belongs to another tenant or credential stores `task.lookup_denied`: a cross-tenant
 * probe is worth a trail. Unknown, expired and own-but-purged ids are not stored: they are no probe
 * of anyone else's data.
 *
 * The event is stored with no tenant (tenant_id NULL, which only admins read), the caller's tenant
 * in its fields: stored under the caller's tenant, whose members read their trail, it told them
 * that an id exists elsewhere, since unknown ids leave no event (review F8, an existence oracle).
 *
 * The caller's answer never depends on this: the check and the write run after the refusal has been
 * decided, without being awaited, so a foreign id answers exactly like an unknown one, bytes and
 * time (the lookup path is the same; the extra read happens off the request's path). Stored events
 * are limited to one per second per credential in this process, so refused lookups cannot be used
 * to fill the table. Written with insertAuditEvent directly (as lib/auth/sign-in-audit.ts does):
 * lib/admin depends on lib/tasks, not the other way round.
 */
const log = createLogger("audit", (process.env.RUNIFOLD_LOG_LEVEL as "info" | undefined) ?? "info");
const fallback = createLogger("audit", "info");

/** Who looked a task up and through which method; passed by the entry points, never by re-reads. */
export type LookupContext = { method: string; actor: string };

const MIN_INTERVAL_MS = 1_000;
// Bounded: past this many credentials the window is forgotten (worst case a few more events).
const MAX_TRACKED = 10_000;
const lastStored = new Map<string, number>();
const pending = new Set<Promise<void>>();

/**
 * Notes a refused lookup: checks in the background whether `taskId` exists outside the caller's
 * binding (another tenant, or with `keyId` another credential of the same tenant) and stores the
 * event if so. Never throws, never delays the caller.
 */
export function noteRefusedLookup(
  sql: SqlHandle,
  params: { tenantId: string; keyId?: string; taskId: string; lookup: LookupContext },
): void {
  if (!isUuid(params.taskId)) return; // a malformed id names no task of anyone
  const work = recordIfForeign(sql, params).catch((error) => {
    fallback.error("denied lookup not audited", { method: params.lookup.method, error: (error as Error).message });
  });
  pending.add(work);
  void work.finally(() => pending.delete(work));
}

/** Test hook: resolves when every background check started so far has finished. */
export async function settleRefusedLookups(): Promise<void> {
  await Promise.all([...pending]);
}

async function recordIfForeign(
  sql: SqlHandle,
  params: { tenantId: string; keyId?: string; taskId: string; lookup: LookupContext },
): Promise<void> {
  const [owner] = await sql.unsafe<{ tenant_id: string; created_by_key_id: string | null }[]>(
    "SELECT tenant_id, created_by_key_id FROM runs WHERE id = $1::uuid",
    [params.taskId],
    PREPARED,
  );
  if (!owner) return;
  const foreign = owner.tenant_id !== params.tenantId || (params.keyId !== undefined && owner.created_by_key_id !== params.keyId);
  if (!foreign) return;
  const limiter = params.keyId ?? params.lookup.actor;
  const now = Date.now();
  if (now - (lastStored.get(limiter) ?? 0) < MIN_INTERVAL_MS) return;
  if (lastStored.size >= MAX_TRACKED) lastStored.clear();
  lastStored.set(limiter, now);
  const fields = {
    method: params.lookup.method,
    taskId: params.taskId,
    ...(params.keyId ? { keyId: params.keyId } : {}),
    callerTenantId: params.tenantId,
  };
  log.info("task.lookup_denied", { actor: params.lookup.actor, tenantId: params.tenantId, ...fields });
  await insertAuditEvent(sql, {
    actor: params.lookup.actor,
    operatorId: null,
    action: "task.lookup_denied",
    tenantId: null,
    address: null,
    fields,
  });
}
