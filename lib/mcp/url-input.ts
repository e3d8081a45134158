import type { InputRequest } from "@runifold/sdk";
import { APPROVAL_FORM_META } from "../approvals";
import { canAsk, elicitationModes } from "./input-capabilities";

/**
 * URL-mode input (DESIGN §8; 2025-11-25 and 2026-07-28 client/elicitation.mdx "URL Mode Elicitation
 * Requests"). A workflow's questions are form elicitations. A client that declared only URL-mode
 * elicitation cannot show the form, but it can show a link: it is sent `elicitation/create` with
 * `mode: "url"` naming the console page where a signed-in operator of the task's tenant answers
 * that one question (`<public URL>/inbox/<taskId>/<key>`, app/(ui)/inbox/[id]/[key]). The page
 * carries no credential ("MUST NOT provide a URL which is pre-authenticated"): whoever opens it
 * signs in, and a task outside their tenants answers like an unknown one.
 *
 * The client's answer to a URL-mode request only says whether its user agreed to open the page
 * ("accept … does not mean that the interaction is complete"); it is never recorded as the
 * question's answer. The answer is given on the page (or in any other channel), and the call that
 * asked waits for it as for any question.
 *
 * Without a public URL (RUNIFOLD_PUBLIC_URL) there is no address to send, so nothing is sent in
 * URL mode and a URL-only client is treated as one that cannot be asked.
 */

/** The stable address of one question's page in the console. */
export function inboxQuestionUrl(publicUrl: string, taskId: string, key: string): string {
  const base = publicUrl.replace(/\/+$/, "");
  return `${base}/inbox/${encodeURIComponent(taskId)}/${encodeURIComponent(key)}`;
}

/**
 * How a client that declared `declared` can be sent `request`: `"as-is"` (it declared the
 * request's own mode), `"url"` (it declared URL mode only, and this server has a public URL to
 * point at), or undefined (it cannot be asked: the question waits for other channels).
 */
export function askMode(
  declared: Record<string, unknown>,
  request: InputRequest,
  publicUrl: string | undefined,
): "as-is" | "url" | undefined {
  if (canAsk(declared, request)) return "as-is";
  if (publicUrl && urlCapable(declared) && request.method === "elicitation/create") return "url";
  return undefined;
}

/** The client declared URL-mode elicitation. */
export function urlCapable(declared: Record<string, unknown>): boolean {
  return elicitationModes(declared).url;
}

/**
 * The URL-mode `elicitation/create` params standing for a form question: its message, and the
 * page that answers it. `elicitationId` is 2025-11-25's (MUST there; 2026-07-28 has none, its MRTR
 * rounds carry the key instead).
 */
export function urlElicitationParams(
  request: InputRequest,
  target: { publicUrl: string; taskId: string; key: string; elicitationId?: string },
): { mode: "url"; message: string; url: string; elicitationId?: string } {
  // An approval's decision form (lib/approvals approvalForm) is decided on the console's Approvals page, not the inbox.
  if (isApprovalForm(request))
    return {
      mode: "url",
      message: `${request.params.message} (Decide this approval in the Runifold console: open the link and sign in.)`,
      url: `${target.publicUrl.replace(/\/+$/, "")}/approvals`,
      ...(target.elicitationId !== undefined ? { elicitationId: target.elicitationId } : {}),
    };
  return {
    mode: "url",
    message: `${request.params.message} (An operator answers this in the Runifold console: open the link and sign in.)`,
    url: inboxQuestionUrl(target.publicUrl, target.taskId, target.key),
    ...(target.elicitationId !== undefined ? { elicitationId: target.elicitationId } : {}),
  };
}

/** An input request as one client is sent it: as the workflow asked it, or its URL-mode stand-in. */
export type AskedRequest = InputRequest | { method: "elicitation/create"; params: ReturnType<typeof urlElicitationParams> };

/**
 * The pending requests of task `taskId` this client can be sent, each in the mode it can be sent
 * (askMode), for an MRTR round (2026-07-28 mrtr.mdx Server Requirements 7: only what the request
 * declared). `skip`: keys already sent in URL mode whose page the client opened (their consent is
 * no answer, and asking again would only send the same link).
 */
export function askableRequests(
  pending: Record<string, InputRequest>,
  declared: Record<string, unknown>,
  target: { publicUrl: string | undefined; taskId: string; skip?: ReadonlySet<string> },
): Record<string, AskedRequest> {
  const asked: Record<string, AskedRequest> = {};
  for (const [key, request] of Object.entries(pending)) {
    if (target.skip?.has(key)) continue;
    const mode = askMode(declared, request, target.publicUrl);
    if (mode === "as-is") asked[key] = request;
    else if (mode === "url" && target.publicUrl)
      asked[key] = {
        method: "elicitation/create",
        params: urlElicitationParams(request, { ...target, publicUrl: target.publicUrl, key }),
      };
  }
  return asked;
}

function isApprovalForm(request: InputRequest): boolean {
  const meta = (request.params as { _meta?: Record<string, unknown> })._meta;
  return meta?.[APPROVAL_FORM_META] !== undefined;
}
