/**
 * @runifold/store — the storage kernel every other part of Runifold stands on: the PostgreSQL pool
 * and handle types, the SQL helpers, and the one ordered history of migrations. The embedded
 * PostgreSQL (`npm start`, test harnesses, the dev server) is its own door, `@runifold/store/embedded`,
 * so importing the kernel never loads it.
 */
export { bounded } from "./bounded";
export { createDb, inTransaction, type Sql, type SqlHandle } from "./client";
export {
  type ConnectionUrl,
  describeConnectionUrl,
  formatConnectionUrl,
  parseConnectionUrl,
  redactConnectionUrl,
  withUser,
} from "./connection-url";
export { firstContact } from "./first-contact";
export { type ListenHandlers, type WatchedListen, type WatchedListenOptions, watchedListen } from "./listen-watchdog";
export { listMigrations, MIGRATIONS_DIR, migrate, migrationsApplied } from "./migrate";
export { MIGRATION_TAGS } from "./migration-tags";
export { DB_POOLER_MODES, type DbPooler, type DbPoolerMode, poolerPoolOptions, sessionPool } from "./pooler";
export { createRuntimeLogins, type RuntimeKind, type RuntimeLogin, scramVerifier } from "./runtime-roles";
export { isUniqueViolation, isUuid, jsonParam, PREPARED } from "./sql";
