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
 */
export async function withdrawQuestions(
  sse: SseStream,
  ledger: DeliveryLedger,
  options: { actor: string; runId: string; keys: string[]; streamTag: string; meta?: Record<string, unknown> },
): Promise<void> {
  for (const { key, answeredBy } of await ledger.settle(options.runId, options.keys)) {
    if (answeredBy === options.actor) continue;
    const reason = answeredBy ? "The question was answered elsewhere" : "The question is no longer open";
    sse.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: {
        requestId: elicitationRequestId(options.runId, key, options.streamTag),
        reason,
        ...(options.meta ? { _meta: options.meta } : {}),
      },
    });
  }
}
