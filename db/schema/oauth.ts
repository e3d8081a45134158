import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { operators } from "./operators";
import { tenants } from "./tenants";

/**
 * The OAuth 2.1 authorization server's state (docs/oauth.md). Every secret (authorization code,
 * access token, refresh token) is stored as its SHA-256 only, so a copy of the store grants nothing.
 */

/**
 * Clients: registered through Dynamic Client Registration (RFC 7591, `kind = 'dcr'`, id random) or
 * described by a Client ID Metadata Document (`kind = 'cimd'`, id = the document's https URL; the
 * row is the cached document, refetched once `expires_at` has passed).
 */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    clientName: text("client_name").notNull(),
    redirectUris: text("redirect_uris").array().notNull(),
    /** The scopes the client registered (null: it may ask for any supported scope). */
    scope: text("scope"),
    clientUri: text("client_uri"),
    logoUri: text("logo_uri"),
    /** The registered (DCR) or fetched (CIMD) metadata as validated, returned to the client on registration. */
    metadata: jsonb("metadata").notNull().default(sql`'{}'::jsonb`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
    /** CIMD: when the document was last fetched, and until when the cached copy is used. */
    fetchedAt: timestamp("fetched_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
  },
  // no secondary index: clients are only read by id
);

/**
 * One authorization = one grant: a client acting for an operator in one tenant with some scopes,
 * for one resource. Its refresh tokens form one rotation family; revoking the grant ends every
 * token issued under it at once ("connected clients" in the console).
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    operatorId: uuid("operator_id")
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    scopes: text("scopes").array().notNull(),
    /** The RFC 8707 resource (audience) every token of this grant is bound to. */
    resource: text("resource").notNull(),
    /** Who acts through the grant's tokens, as writes record it (`operator:<id>`). */
    actor: text("actor").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** Why it was revoked: `revoked` (by a person or RFC 7009), `code_reuse`, `refresh_reuse`. */
    revokedReason: text("revoked_reason"),
  },
  // serves: listGrants by operator (the operator's connected clients) and by tenant (an admin's view);
  // client: purgeAbandonedRegistrations' "no grant names it" probe and the cascade when a client goes
  (t) => [
    index("oauth_grants_operator_idx").on(t.operatorId, t.createdAt),
    index("oauth_grants_tenant_idx").on(t.tenantId, t.createdAt),
    index("oauth_grants_client_idx").on(t.clientId),
  ],
);

/**
 * Authorization codes: single use (`used_at`), 60 s. `grant_id` is set when the code is exchanged,
 * so presenting it again revokes what it produced (RFC 6749 §4.1.2).
 */
export const oauthAuthorizationCodes = pgTable(
  "oauth_authorization_codes",
  {
    codeSha256: text("code_sha256").primaryKey(),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    operatorId: uuid("operator_id")
      .notNull()
      .references(() => operators.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    scopes: text("scopes").array().notNull(),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    resource: text("resource").notNull(),
    actor: text("actor").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    grantId: uuid("grant_id").references(() => oauthGrants.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  // serves: the purge of expired codes; client: purgeAbandonedRegistrations' "no pending code names
  // it" probe; client, grant, operator, tenant: the cascades when one of those goes
  (t) => [
    index("oauth_authorization_codes_expires_idx").on(t.expiresAt),
    index("oauth_authorization_codes_client_idx").on(t.clientId),
    index("oauth_authorization_codes_grant_idx").on(t.grantId),
    index("oauth_authorization_codes_operator_idx").on(t.operatorId),
    index("oauth_authorization_codes_tenant_idx").on(t.tenantId),
  ],
);

/**
 * Access (`kind = 'access'`, `rfa_…`) and refresh (`kind = 'refresh'`, `rfr_…`) tokens of a grant.
 * A refresh token is rotated on use (`used_at`); a used one presented again revokes its grant.
 */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    tokenSha256: text("token_sha256").primaryKey(),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    /** This token's scopes: the grant's, or fewer when a refresh asked for fewer (RFC 6749 §6). */
    scopes: text("scopes").array().notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  // serves: the purge of expired tokens, and a grant's tokens (family listing, cascade on delete)
  (t) => [index("oauth_tokens_expires_idx").on(t.expiresAt), index("oauth_tokens_grant_idx").on(t.grantId)],
);
