import { defineConfig } from "drizzle-kit";

// Used only by `npm run db:generate`; migrations are applied by scripts/migrate.ts (advisory-locked).
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
});
