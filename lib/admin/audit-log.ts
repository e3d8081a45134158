import { z } from "zod";
import { type AuditEventRow, listAuditEvents } from "../../db/queries/audit-events";
import type { AdminContext } from "./actor";
import { parseInput } from "./parse-input";

export const ZListAudit = z.object({
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  /** Page backwards: the smallest id of the previous page. */
  beforeId: z.coerce.number().int().min(1).optional(),
  /** An action (`tenant.disable`) or a prefix ending in `.` (`auth.`). */
  action: z.string().trim().max(100).optional(),
  tenantId: z.uuid().optional(),
});

export type AuditEntry = {
  id: number;
  at: string;
  actor: string;
  action: string;
  tenantId: string | null;
  address: string | null;
  fields: Record<string, unknown>;
};

/**
 * The stored audit trail, newest first. For admins only: the console's Audit page requires the
 * admin role, and the CLI runs with database access.
 */
export async function listAudit(ctx: Pick<AdminContext, "sql">, input: z.input<typeof ZListAudit> = {}): Promise<AuditEntry[]> {
  const params = parseInput(ZListAudit, input);
  const rows = await listAuditEvents(ctx.sql, { ...params, action: params.action || undefined });
  return rows.map(toEntry);
}

function toEntry(row: AuditEventRow): AuditEntry {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    action: row.action,
    tenantId: row.tenant_id,
    address: row.address,
    fields: row.fields,
  };
}
