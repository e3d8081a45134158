import type { Logger } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { findScopedTenantBySlug, type TenantRow } from "../../../db/queries/tenants";
import type { AdminContext } from "../../admin";
import type { OperatorPrincipal } from "../../auth";
import { AppError } from "../../errors";
import { readCappedBody } from "../read-capped-body";

export type AdminApiDeps = { sql: () => SqlHandle; logger: Logger };

/** One authenticated admin API request: lib/admin's context acting as the token's operator, and the operator's rights. */
export type AdminCall = AdminContext & { principal: OperatorPrincipal; request: Request; url: URL };

/** An admin request body is small (a route's input schema is the largest thing in one). */
const BODY_MAX_BYTES = 256 * 1024;

/**
 * The tenant a path names by slug, if the token's operator may see it; otherwise "not found", the
 * same answer as for a slug that does not exist (the scope is in the query's WHERE clause).
 */
export async function visibleTenant(call: AdminCall, slug: string): Promise<TenantRow> {
  const tenant = await findScopedTenantBySlug(call.sql, { slug, scope: call.principal.tenantIds });
  if (!tenant) throw new AppError("not_found", `No tenant "${slug}"`);
  return tenant;
}

/** The JSON object a POST carries: 415 unless application/json, 400 unless one JSON object (AppError codes). */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  if (request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() !== "application/json")
    throw new UnsupportedMediaType();
  const body = await readCappedBody(request, BODY_MAX_BYTES);
  if (body.kind === "too_large") throw new AppError("bad_request", `The body is limited to ${BODY_MAX_BYTES} bytes`);
  if (body.kind === "unreadable") throw new AppError("bad_request", "The request body could not be read");
  let value: unknown;
  try {
    value = body.bytes.length === 0 ? {} : JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body.bytes));
  } catch {
    throw new AppError("bad_request", "The body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new AppError("bad_request", "The body must be a JSON object");
  return value as Record<string, unknown>;
}

export class UnsupportedMediaType extends Error {
  constructor() {
    super("Send the body as Content-Type: application/json");
  }
}
