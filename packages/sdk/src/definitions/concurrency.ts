/**
 * Concurrency keys and priority of a workflow (docs/authoring.md "Concurrency keys and priority").
 *
 * The key is data, not a function: a fixed string, or `{ input: "/service" }`, a JSON pointer (RFC 6901)
 * into the run's input. Why not `(input) => string`: runs are created by processes that never load
 * workflow code — the web from a route, the scheduler, a compensation trigger — and a slot must be taken
 * when the run is created, before any worker claims it, so that a run whose key is full is set aside and
 * never read by a claim (a key computed by a worker at its first claim would have to be claimed first, and
 * a full key's runs would fill the claim window). A pointer is published with the definition and read by
 * the store itself as each run is inserted (migration 0043), whoever inserts it.
 */
export type ConcurrencyOption = {
  /** A fixed key (every run of the workflow shares it) or `{ input: "/a/b" }`: the input's value at that pointer. */
  key: string | { input: string };
  /** How many runs of one key (per tenant and workflow name, every version) may be under way at once. */
  limit: number;
};

/** What is published (workflow_definitions.concurrency): the pointer split into its reference tokens. */
export type PublishedConcurrency = { key: string; limit: number } | { path: string[]; limit: number };

/** Highest and lowest priority a definition may declare. */
export const PRIORITY_RANGE = { min: -1000, max: 1000 } as const;

/** RFC 6901 reference tokens of a pointer ("" is the whole input, which is refused: a key is one value). */
export function pointerTokens(pointer: string): string[] {
  if (!pointer.startsWith("/") || pointer === "/")
    throw new Error(`workflow concurrency.key.input must be a JSON pointer such as "/service", got "${pointer}"`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Throws on a malformed option; defineWorkflow calls it so a mistake fails at import, not at the first run. */
export function checkConcurrencyAndPriority(definition: { concurrency?: unknown; priority?: unknown }): void {
  if (definition.concurrency !== undefined) publishedConcurrency(definition.concurrency as ConcurrencyOption);
  const priority = definition.priority;
  if (
    priority !== undefined &&
    !(
      typeof priority === "number" &&
      Number.isInteger(priority) &&
      priority >= PRIORITY_RANGE.min &&
      priority <= PRIORITY_RANGE.max
    )
  )
    throw new Error(`workflow priority must be an integer from ${PRIORITY_RANGE.min} to ${PRIORITY_RANGE.max}`);
}

export function publishedConcurrency(option: ConcurrencyOption): PublishedConcurrency {
  if (typeof option !== "object" || option === null) throw new Error("workflow concurrency must be { key, limit }");
  const { key, limit } = option;
  if (!(Number.isInteger(limit) && limit >= 1)) throw new Error("workflow concurrency.limit must be an integer >= 1");
  if (typeof key === "string") {
    if (key.length === 0 || key.length > 255) throw new Error("workflow concurrency.key must be 1-255 characters");
    return { key, limit };
  }
  if (typeof key === "object" && key !== null && typeof key.input === "string") return { path: pointerTokens(key.input), limit };
  throw new Error('workflow concurrency.key must be a string or { input: "/pointer" }');
}
