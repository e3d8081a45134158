import journal from "../migrations/meta/_journal.json" with { type: "json" };

/**
 * The migrations of this store, in order, read at build time (bundlers inline the journal), so a
 * worker knows which schema it was built against without reading files at run time.
 */
export const MIGRATION_TAGS: readonly string[] = journal.entries.map((entry) => entry.tag);
