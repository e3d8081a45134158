import "server-only";
import { coerceError, createLogger } from "@runifold/sdk";
import { audit, iterateAudit, parseInput, ZAuditSearch } from "../../admin";
import type { OperatorContext } from "../../auth";
import { requireOperator } from "../../auth";
import { isAppError } from "../../errors";
import { csvRow } from "../csv";
import { auditFiltersFrom, auditFilterValues } from "../presenters/audit";

const log = createLogger("ui");

export const AUDIT_CSV_COLUMNS = [
  "id",
  "at",
  "action",
  "actor",
  "operator_email",
  "tenant_id",
  "tenant_slug",
  "address",
  "fields",
] as const;

// GET /api/ui/audit.csv?actor=&action=&tenant=&from=&to= – every audit event the operator may read
// for the filters (the Audit page's), newest first, as CSV. Authorized like the page: an admin gets
// every event, a member only its tenants' (the scope is in the query). Streamed a keyset page at a
// time, so a long trail never sits in memory; the export itself is audited (`audit.export`).
export async function handleAuditCsv(ctx: OperatorContext, request: Request): Promise<Response> {
  let filters: ReturnType<typeof auditFiltersFrom>;
  let operator: Awaited<ReturnType<typeof requireOperator>>;
  try {
    operator = await requireOperator(ctx);
    filters = auditFiltersFrom(auditFilterValues(new URL(request.url).searchParams));
    // Checked before the first byte: once streaming, a bad filter could only cut the body off.
    parseInput(ZAuditSearch, filters);
  } catch (error) {
    if (isAppError(error)) return error.toResponse();
    throw error;
  }
  await audit({ sql: ctx.sql, actor: { kind: "operator", id: operator.id, email: operator.email } }, "audit.export", {
    tenantFilter: filters.tenantId,
    actionFilter: filters.action,
    actorFilter: filters.actor,
  });
  const rows = iterateAudit({ sql: ctx.sql }, { ...filters, scope: operator.tenantIds });
  const encoder = new TextEncoder();
  let header = true;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (header) {
        header = false;
        controller.enqueue(encoder.encode(csvRow(AUDIT_CSV_COLUMNS)));
        return;
      }
      try {
        const next = await rows.next();
        if (next.done) {
          controller.close();
          return;
        }
        const e = next.value;
        controller.enqueue(
          encoder.encode(csvRow([e.id, e.at, e.action, e.actor, e.operatorEmail, e.tenantId, e.tenantSlug, e.address, e.fields])),
        );
      } catch (error) {
        // The status line is already sent: a cut-off body (the download fails) is all that can be said.
        log.error("audit export failed", { error: coerceError(error).message });
        controller.error(error);
      }
    },
    async cancel() {
      await rows.return(undefined);
    },
  });
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "-");
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="runifold-audit-${stamp}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
