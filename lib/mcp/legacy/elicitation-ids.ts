import { randomBytes } from "node:crypto";
import { isUuid } from "@runifold/store";

/**
 * JSON-RPC IDs of the `elicitation/create` requests a task's input requests go out as:
 * `rf-ask:<task>:<stream tag>:<key>`. They name the task and the key, so the client's response is
 * routed by ANY web instance (stateless, round-robin, restarts), and they carry the tag of the
 * stream that sent them (one per stream, `newStreamTag`), so a question re-sent on a re-opened
 * stream of the same session goes out under a fresh ID: "The request ID MUST NOT have been
 * previously used by the requestor within the same session" (2025-11-25 basic/index.mdx; review3
 * D9). Each stream sends a key at most once, so the IDs of one session never repeat. An answer to
 * an older ID of the same question is still an answer to it (first answer wins in provideInput).
 *
 * A question sent in URL mode (url-input.ts: the client declared only that mode) goes out as
 * `rf-url:<task>:<stream tag>:<key>`, which is also its `elicitationId`: the client's response to
 * it is consent to open the page, never the answer (client-responses.ts), and the prefix says so
 * to whichever instance receives it.
 *
 * `rf-input:<task>:<key>` (no tag) is the question's stable ANSWER ADDRESS: a client that learned a
 * task's questions from tasks/get or the CLI may POST its JSON-RPC response to it without having
 * received the request (packages/client's legacy updateTask does). The server never sends it.
 * Task IDs are UUIDs and tags base64url, neither with a colon: everything after them is the key.
 */
const ASK = "rf-ask:";
const URL_MODE = "rf-url:";
const ADDRESS = "rf-input:";
const MAX_ID_CHARS = 1_000;

/** A fresh tag for one stream's questions (72 random bits, base64url). */
export function newStreamTag(): string {
  return randomBytes(9).toString("base64url");
}

export function elicitationRequestId(taskId: string, key: string, streamTag: string, mode: "form" | "url" = "form"): string {
  return `${mode === "url" ? URL_MODE : ASK}${taskId}:${streamTag}:${key}`;
}

/** The question's stable answer address (never sent by the server). */
export function answerAddress(taskId: string, key: string): string {
  return `${ADDRESS}${taskId}:${key}`;
}

/** Task and key of one of our IDs; `url: true` for a URL-mode request's (its response is consent only). */
export function parseElicitationRequestId(id: unknown): { taskId: string; key: string; url?: true } | undefined {
  if (typeof id !== "string" || id.length > MAX_ID_CHARS) return undefined;
  if (id.startsWith(ADDRESS)) return taskAndKey(id.slice(ADDRESS.length));
  const prefix = id.startsWith(ASK) ? ASK : id.startsWith(URL_MODE) ? URL_MODE : undefined;
  if (!prefix) return undefined;
  const rest = id.slice(prefix.length);
  const first = rest.indexOf(":");
  const second = first < 0 ? -1 : rest.indexOf(":", first + 1);
  if (second < 0 || !/^[A-Za-z0-9_-]+$/.test(rest.slice(first + 1, second))) return undefined;
  const target = taskAndKey(`${rest.slice(0, first)}:${rest.slice(second + 1)}`);
  return target && prefix === URL_MODE ? { ...target, url: true } : target;
}

function taskAndKey(rest: string): { taskId: string; key: string } | undefined {
  const colon = rest.indexOf(":");
  if (colon < 0) return undefined;
  const taskId = rest.slice(0, colon);
  const key = rest.slice(colon + 1);
  return isUuid(taskId) && key.length > 0 ? { taskId, key } : undefined;
}
