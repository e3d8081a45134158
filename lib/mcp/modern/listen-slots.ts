import { McpError, RPC } from "../json-rpc";

/** Open subscriptions/listen streams one credential may hold on one instance. */
export const MAX_LISTEN_STREAMS_PER_CREDENTIAL = 10;

const open = new Map<string, number>();

/**
 * Takes a listen slot for a credential, or refuses with 429: each stream holds a LISTEN
 * subscription and a poll timer, so one key must not be able to open them without bound. The count
 * is per instance (streams live in one process); the returned release is idempotent.
 */
export function acquireListenSlot(keyId: string): () => void {
  const count = open.get(keyId) ?? 0;
  if (count >= MAX_LISTEN_STREAMS_PER_CREDENTIAL) {
    throw new McpError(
      RPC.invalidRequest,
      `Too many open subscriptions for this credential (at most ${MAX_LISTEN_STREAMS_PER_CREDENTIAL}); close one first`,
      undefined,
      429,
    );
  }
  open.set(keyId, count + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (open.get(keyId) ?? 1) - 1;
    if (left <= 0) open.delete(keyId);
    else open.set(keyId, left);
  };
}
