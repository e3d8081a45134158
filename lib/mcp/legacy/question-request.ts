import type { InputRequest } from "@runifold/sdk";
import { urlElicitationParams } from "../url-input";
import { elicitationRequestId } from "./elicitation-ids";
import { sessionAskMode } from "./session";
import type { LegacySession } from "./session-record";

export type QuestionRequest = { message: Record<string, unknown>; url: boolean };

/**
 * The `elicitation/create` request one stream sends for an open question of its session, or
 * undefined when the session cannot be asked it (session.ts sessionAskMode). A question the session
 * declared the mode of goes out as the workflow asked it; for a session that declared only URL mode
 * it goes out in URL mode (url-input.ts), pointing at the question's console page, under an
 * `rf-url:` ID that is also its `elicitationId` (elicitation-ids.ts). `meta` is the related-task
 * `_meta` of task streams (tasks.mdx "Associating Task-Related Messages"); ordinary calls have none.
 */
export function questionRequest(
  session: LegacySession | undefined,
  publicUrl: string | undefined,
  target: { taskId: string; key: string; streamTag: string },
  request: InputRequest,
  meta?: Record<string, unknown>,
): QuestionRequest | undefined {
  const mode = sessionAskMode(session, request, publicUrl);
  if (!mode) return undefined;
  const withMeta = (params: Record<string, unknown>) => (meta ? { ...params, _meta: meta } : params);
  if (mode === "as-is") {
    const id = elicitationRequestId(target.taskId, target.key, target.streamTag);
    return { url: false, message: { jsonrpc: "2.0", id, method: request.method, params: withMeta(request.params) } };
  }
  const id = elicitationRequestId(target.taskId, target.key, target.streamTag, "url");
  // publicUrl is set: sessionAskMode answers "url" only then.
  const params = urlElicitationParams(request, { publicUrl: publicUrl as string, ...target, elicitationId: id });
  return { url: true, message: { jsonrpc: "2.0", id, method: "elicitation/create", params: withMeta(params) } };
}
