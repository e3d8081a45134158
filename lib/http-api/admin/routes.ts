import { listRouteRevisions, type RouteRow } from "../../../db/queries/routes";
import { definitionsFromStore, listPublishedDefinitions, saveRoute, UnpublishedWorkflowError } from "../../admin";
import { apiError, jsonResponse } from "../responses";
import { type AdminCall, readJsonObject, visibleTenant } from "./context";
import { keysetPage, pageRequest } from "./pagination";

/**
 * GET /api/v1/admin/tenants/{tenant}/routes[?allRevisions=true]: the current revision of each tool
 * (every revision with allRevisions), by tool name then newest revision first — the documents
 * `runifold routes list --json` prints.
 */
export async function listRoutesApi(call: AdminCall, [slug]: string[]): Promise<Response> {
  const tenant = await visibleTenant(call, slug as string);
  const all = call.url.searchParams.get("allRevisions") === "true";
  const rows = (await listRouteRevisions(call.sql, tenant.id)).sort((a, b) =>
    a.tool_name === b.tool_name ? b.revision - a.revision : a.tool_name < b.tool_name ? -1 : 1,
  );
  const shown = all ? rows : rows.filter((row, i) => i === 0 || rows[i - 1]?.tool_name !== row.tool_name);
  const page = keysetPage(
    shown,
    pageRequest(call.url),
    (row: RouteRow) => [row.tool_name, String(row.revision)],
    (row, [tool, revision]) => row.tool_name > (tool as string) || (row.tool_name === tool && row.revision < Number(revision)),
    2,
  );
  return jsonResponse({ routes: page.items, nextCursor: page.nextCursor }, 200);
}

/**
 * POST /api/v1/admin/tenants/{tenant}/routes `{ toolName, workflowName, workflowVersion, taskSupport?,
 * title?, description?, inputSchema?, allowUnpublished?, maxTtlMs?, syncDeadlineMs? }`: a new revision
 * through lib/admin saveRoute (the console's and the CLI's rules, audited). 201 `{ route,
 * inputSchemaFrom, servedBy }`; 409 `unpublished_workflow` when no worker published that version.
 */
export async function addRouteApi(call: AdminCall, [slug]: string[]): Promise<Response> {
  const tenant = await visibleTenant(call, slug as string);
  const body = await readJsonObject(call.request);
  try {
    const saved = await saveRoute({ ...call, resolveDefinition: definitionsFromStore(call.sql) }, {
      ...body,
      tenantId: tenant.id,
    } as Parameters<typeof saveRoute>[1]);
    const key = `${saved.route.workflow_name}@${saved.route.workflow_version}`;
    const servedBy = (await listPublishedDefinitions(call)).find((d) => d.key === key)?.servedBy ?? 0;
    return jsonResponse({ ...saved, servedBy }, 201);
  } catch (error) {
    if (error instanceof UnpublishedWorkflowError)
      return apiError(
        409,
        "unpublished_workflow",
        `No worker has published ${error.workflowKey}; send "allowUnpublished": true to bind it anyway`,
      );
    throw error;
  }
}
