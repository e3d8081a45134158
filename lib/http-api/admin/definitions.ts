import { listPublishedDefinitions } from "../../admin";
import { jsonResponse } from "../responses";
import type { AdminCall } from "./context";
import { keysetPage, pageRequest } from "./pagination";

/**
 * GET /api/v1/admin/definitions: the workflow definitions workers published (shared by every tenant,
 * as `runifold definitions list` shows them), ordered by name@version.
 */
export async function listDefinitionsApi(call: AdminCall): Promise<Response> {
  const definitions = (await listPublishedDefinitions(call)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const page = keysetPage(
    definitions,
    pageRequest(call.url),
    (definition) => [definition.key],
    (definition, [key]) => definition.key > (key as string),
  );
  return jsonResponse({ definitions: page.items, nextCursor: page.nextCursor }, 200);
}
