import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/db";

/**
 * Every foreign key has an index led by its columns (migration 0025). Deleting a referenced row
 * checks or cascades to the rows that name it; without such an index each of those is a sequential
 * scan of the referencing table per deleted row, and the store deletes referenced rows on hot
 * paths (expired MCP sessions on every session insert, abandoned OAuth registrations by retention).
 */

type Unindexed = { table: string; constraint: string; columns: string[] };

/** Foreign keys of the public schema with no index whose leading columns are exactly the key's. */
const UNINDEXED = `
  SELECT c.conrelid::regclass::text AS table, c.conname AS constraint,
         array(SELECT a.attname FROM unnest(c.conkey) k JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k)::text[] AS columns
  FROM pg_constraint c
  WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
    AND NOT EXISTS (
      SELECT 1 FROM pg_index i
      WHERE i.indrelid = c.conrelid
        AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
        AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
  ORDER BY 1, 2`;

describe("foreign keys", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("each have an index led by their columns", async () => {
    expect(await db.sql.unsafe<Unindexed[]>(UNINDEXED)).toEqual([]);
  });

  it("are reported when they have none (the check itself)", async () => {
    await db.sql.unsafe(`CREATE TABLE fk_probe (id int PRIMARY KEY, tenant_id uuid REFERENCES tenants (id) ON DELETE CASCADE)`);
    try {
      expect(await db.sql.unsafe<Unindexed[]>(UNINDEXED)).toEqual([
        { table: "fk_probe", constraint: "fk_probe_tenant_id_fkey", columns: ["tenant_id"] },
      ]);
      await db.sql.unsafe(`CREATE INDEX fk_probe_tenant_created ON fk_probe (tenant_id, id)`);
      expect(await db.sql.unsafe<Unindexed[]>(UNINDEXED)).toEqual([]);
    } finally {
      await db.sql.unsafe(`DROP TABLE fk_probe`);
    }
  });
});
