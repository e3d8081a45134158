/** Deeper JSON than this is refused: no MCP message nests anywhere near it, and deep values overflow
 * the stack of recursive code further in (JSON.stringify, schema validation) — a 5xx, not an answer. */
export const MAX_JSON_DEPTH = 64;

export type JsonShape = { tooDeep: boolean; hasNul: boolean };

/**
 * Walks a parsed body once, iteratively (no recursion, so no depth can overflow it): whether it
 * nests deeper than MAX_JSON_DEPTH, and whether any key or string holds U+0000, which Postgres
 * text and jsonb cannot store.
 */
export function inspectJson(root: unknown): JsonShape {
  const pending: [value: unknown, depth: number][] = [[root, 0]];
  let hasNul = false;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value === "string") {
      if (value.includes("\u0000")) hasNul = true;
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_JSON_DEPTH) return { tooDeep: true, hasNul };
    for (const [key, child] of Object.entries(value)) {
      if (key.includes("\u0000")) hasNul = true;
      pending.push([child, depth + 1]);
    }
  }
  return { tooDeep: false, hasNul };
}
