import { randomUUID } from "node:crypto";
import type { SqlHandle } from "@runifold/store";
import { claimInputDeliveries, releaseInputDeliveries, renewInputDeliveries } from "../../../db/queries/mcp-sessions";

/** How long a claim outlives its stream's last renewal (an instance that died without releasing). */
const LEASE_MS = 15_000;
/** A stream holding claims renews them this often, well inside the lease. */
const RENEW_EVERY_MS = 5_000;

/**
 * Which stream sends an input request (2025-11-25 basic/transports.mdx "Multiple Connections": the
 * server MUST send each of its JSON-RPC messages on only one of the connected streams). A client may
 * hold a tasks/result stream and the session's standalone GET stream at once, on different
 * instances, and both would see the same open question: each stream sends a question only after
 * claiming it in the store (mcp_input_deliveries), and keeps the claim while it lives. When the
 * stream ends its claims are released, so a re-opened stream (the client may have lost the message)
 * sends the still-open questions again with the same `rf-input:<task>:<key>` IDs; a claim of a
 * crashed instance lapses after LEASE_MS. A stream that finds a question claimed elsewhere tries
 * again on its next round.
 */
export type DeliveryLedger = {
  /** The keys of `runId` this stream may send now (won, or already its own). */
  claim(runId: string, keys: string[]): Promise<string[]>;
  /** Releases claims of `runId` whose questions are no longer open; who answered each. */
  settle(runId: string, keys: string[]): Promise<{ key: string; answeredBy: string | null }[]>;
  /** Extends this stream's claims when due (called every round). */
  renewIfDue(): Promise<void>;
  /** Releases everything (the stream ended). Never throws: a lapsing lease covers a failure. */
  release(): Promise<void>;
};

export function deliveryLedger(
  sql: SqlHandle,
  options: { sessionIdSha256: string; standalone: boolean; onError: (error: Error) => void; streamId?: string },
): DeliveryLedger {
  // A standalone stream passes the ID it wrote into its session's slot: its claims check that slot.
  const streamId = options.streamId ?? randomUUID();
  let holding = false;
  let ended = false;
  let renewedAt = Date.now();
  return {
    async claim(runId, keys) {
      const won = await claimInputDeliveries(sql, {
        runId,
        keys,
        sessionIdSha256: options.sessionIdSha256,
        streamId,
        leaseMs: LEASE_MS,
        standalone: options.standalone,
      });
      // The stream ended while this claim was in flight: hand the keys straight back.
      if (ended) {
        if (won.length > 0) await releaseInputDeliveries(sql, { streamId }).catch((error: Error) => options.onError(error));
        return [];
      }
      if (won.length > 0 && !holding) {
        holding = true;
        renewedAt = Date.now();
      }
      return won;
    },
    async settle(runId, keys) {
      if (keys.length === 0) return [];
      const released = await releaseInputDeliveries(sql, { streamId, runId, keys });
      return released.map(({ key, answeredBy }) => ({ key, answeredBy }));
    },
    async renewIfDue() {
      if (!holding || Date.now() - renewedAt < RENEW_EVERY_MS) return;
      await renewInputDeliveries(sql, { streamId, leaseMs: LEASE_MS });
      renewedAt = Date.now();
    },
    async release() {
      ended = true;
      if (!holding) return;
      holding = false;
      await releaseInputDeliveries(sql, { streamId }).catch((error: Error) => options.onError(error));
    },
  };
}
