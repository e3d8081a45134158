import type { SseStream } from "../sse";
import type { DeliveryLedger } from "./deliveries";
import { elicitationRequestId } from "./elicitation-ids";

/**
 * Withdraws questions this stream sent that are no longer open (answered elsewhere — the console,
 * tasks/update, the CLI, another client — or left open by a run that ended) with
 * `notifications/cancelled {requestId}` (2025-11-25 basic/utilities/cancellation.mdx: either side
 * MAY cancel a request it issued earlier; the client then closes its dialog). Only keys whose claim
 * this stream held are withdrawn (deliveries.ts settle: it released them), so each withdrawal goes
 * out on the one stream that carried the question ("Multiple Connections"). A question this very
 * credential answered is not withdrawn: the client knows, it sent the answer. `meta` is the
 * related-task `_meta` on task streams (tasks.mdx "Associating Task-Related Messages"); ordinary
 * calls have none.
 *
 * A question sent in URL mode (`urlKeys`, url-input.ts) that someone answered is instead completed:
 * `notifications/elicitation/complete {elicitationId}` (2025-11-25 client/elicitation.mdx
 * "Completion Notifications for URL Mode Elicitation": MAY, only to the client that was sent the
 * request, with its elicitationId), whoever answered — the client itself only ever consented to
 * open the page. One that nobody answered (the run ended) is withdrawn like any other.
 */
export async function withdrawQuestions(
  sse: SseStream,
  ledger: DeliveryLedger,
  options: {
    actor: string;
    runId: string;
    keys: string[];
    streamTag: string;
    meta?: Record<string, unknown>;
    urlKeys?: ReadonlySet<string>;
  },
): Promise<void> {
  const meta = options.meta ? { _meta: options.meta } : {};
  for (const { key, answeredBy } of await ledger.settle(options.runId, options.keys)) {
    const url = options.urlKeys?.has(key) ?? false;
    const requestId = elicitationRequestId(options.runId, key, options.streamTag, url ? "url" : "form");
    if (url && answeredBy) {
      sse.send({ jsonrpc: "2.0", method: "notifications/elicitation/complete", params: { elicitationId: requestId, ...meta } });
      continue;
    }
    if (answeredBy === options.actor) continue;
    const reason = answeredBy ? "The question was answered elsewhere" : "The question is no longer open";
    sse.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason, ...meta } });
  }
}
