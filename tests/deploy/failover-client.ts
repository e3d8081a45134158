import { modernRequest } from "../helpers/mcp-envelope";

/**
 * A 2026-07-28 client spread over several web processes the way a round-robin load balancer spreads
 * it: each request goes to the next origin, and one that cannot be reached (connection refused or
 * reset: a killed process) is retried on the following one. A `tools/call` carries an idempotency
 * key, so retrying one whose answer was lost never creates a second task.
 */
const ROUNDS = 8;
const ROUND_PAUSE_MS = 350;

export type Served = {
  origin: number;
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string } };
};

export function failoverClient(origins: string[], token: string) {
  let turn = 0;
  const served = origins.map(() => 0);
  const counts = { requests: 0, failovers: 0, serverErrors: 0 };

  async function once(origin: string, method: string, params: Record<string, unknown>, meta: Record<string, unknown>) {
    // A retry repeats the request's id: it is the same request, sent again.
    const request = modernRequest(method, params, { token, id: counts.requests, meta });
    const response = await fetch(`${origin}/api/mcp`, { ...request, signal: AbortSignal.timeout(15_000) });
    return { status: response.status, body: (await response.json()) as Served["body"] };
  }

  return {
    served,
    counts,
    async request(method: string, params: Record<string, unknown>, meta: Record<string, unknown> = {}): Promise<Served> {
      counts.requests += 1;
      let lastError: unknown;
      // Rounds over every origin with a growing pause between them (about 10 s in all), as a load
      // balancer's client retries: a live process on a loaded machine can miss a connection for a
      // moment (its accept queue, a pause), which is not the failure under test.
      for (let round = 0; round < ROUNDS; round++) {
        if (round > 0) await new Promise((resolve) => setTimeout(resolve, round * ROUND_PAUSE_MS));
        for (let tries = 0; tries < origins.length; tries++) {
          const index = turn++ % origins.length;
          try {
            const answer = await once(origins[index] as string, method, params, meta);
            if (answer.status >= 500) counts.serverErrors += 1;
            served[index] = (served[index] ?? 0) + 1;
            return { origin: index, ...answer };
          } catch (error) {
            lastError = error;
            counts.failovers += 1;
          }
        }
      }
      const cause = (lastError as { cause?: { code?: string; message?: string } })?.cause;
      throw new Error(
        `${method}: no web process answered (${(lastError as Error)?.message}${cause ? `: ${cause.code ?? cause.message}` : ""})`,
      );
    },
  };
}
