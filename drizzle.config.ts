import { defineConfig } from "drizzle-kit";

// The schema (db/schema) is the authoring source; its migrations belong to @runifold/store, one ordered
// history for every table. Used only by `npm run db:generate`; migrations are applied by scripts/migrate.ts (advisory-locked).
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./packages/store/migrations",
});
