import { jsonParam, type SqlHandle } from "@runifold/store";

export type OAuthClientRow = {
  id: string;
  kind: "dcr" | "cimd";
  client_name: string;
  redirect_uris: string[];
  scope: string | null;
  client_uri: string | null;
  logo_uri: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  fetched_at: Date | null;
  expires_at: Date | null;
  /** Whether a CIMD row's cached copy is still fresh (computed with the database's clock). */
  fresh: boolean;
};

export type OAuthClientFields = {
  id: string;
  clientName: string;
  redirectUris: string[];
  scope: string | null;
  clientUri: string | null;
  logoUri: string | null;
  metadata: Record<string, unknown>;
};

const COLUMNS = `id, kind, client_name, redirect_uris, scope, client_uri, logo_uri, metadata, created_at, fetched_at, expires_at,
  (expires_at IS NULL OR expires_at > now()) AS fresh`;

export async function findOAuthClient(sql: SqlHandle, clientId: string): Promise<OAuthClientRow | undefined> {
  const rows = await sql.unsafe<OAuthClientRow[]>(`SELECT ${COLUMNS} FROM oauth_clients WHERE id = $1`, [clientId]);
  return rows[0];
}

/** A client registered through RFC 7591 Dynamic Client Registration. */
export async function insertRegisteredClient(sql: SqlHandle, client: OAuthClientFields): Promise<OAuthClientRow> {
  const rows = await sql.unsafe<OAuthClientRow[]>(
    `INSERT INTO oauth_clients (id, kind, client_name, redirect_uris, scope, client_uri, logo_uri, metadata)
     VALUES ($1, 'dcr', $2, $3::text[], $4, $5, $6, $7::text::jsonb) RETURNING ${COLUMNS}`,
    [
      client.id,
      client.clientName,
      client.redirectUris,
      client.scope,
      client.clientUri,
      client.logoUri,
      jsonParam(client.metadata),
    ],
  );
  return rows[0] as OAuthClientRow;
}

/**
 * Stores (or refreshes) the cached copy of a Client ID Metadata Document, usable for `maxAgeS`.
 * Grants keep pointing at the same row, so a refetch never disconnects anyone.
 */
export async function upsertMetadataDocumentClient(
  sql: SqlHandle,
  client: OAuthClientFields & { maxAgeS: number },
): Promise<OAuthClientRow | undefined> {
  const rows = await sql.unsafe<OAuthClientRow[]>(
    `INSERT INTO oauth_clients (id, kind, client_name, redirect_uris, scope, client_uri, logo_uri, metadata, fetched_at, expires_at)
     VALUES ($1, 'cimd', $2, $3::text[], $4, $5, $6, $7::text::jsonb, now(), now() + $8 * interval '1 second')
     ON CONFLICT (id) DO UPDATE SET client_name = EXCLUDED.client_name, redirect_uris = EXCLUDED.redirect_uris,
       scope = EXCLUDED.scope, client_uri = EXCLUDED.client_uri, logo_uri = EXCLUDED.logo_uri, metadata = EXCLUDED.metadata,
       fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at
     WHERE oauth_clients.kind = 'cimd'
     RETURNING ${COLUMNS}`,
    [
      client.id,
      client.clientName,
      client.redirectUris,
      client.scope,
      client.clientUri,
      client.logoUri,
      jsonParam(client.metadata),
      client.maxAgeS,
    ],
  );
  return rows[0];
}

/**
 * Deletes Dynamic Client Registrations made more than `olderThanMs` ago that nothing ever used: no
 * grant and no authorization code names them (a client that was consented to keeps its row, and
 * grants cascade from it). At most `limit` a call, oldest first. Metadata-document clients are a
 * cache refreshed on use, not registrations, and are left alone.
 */
export async function purgeAbandonedRegistrations(sql: SqlHandle, olderThanMs: number, limit = 1_000): Promise<number> {
  const rows = await sql.unsafe(
    `DELETE FROM oauth_clients WHERE id IN (
       SELECT c.id FROM oauth_clients c
       WHERE c.kind = 'dcr' AND c.created_at < now() - make_interval(secs => $1::float8 / 1000.0)
         AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id)
         AND NOT EXISTS (SELECT 1 FROM oauth_authorization_codes a WHERE a.client_id = c.id)
       ORDER BY c.created_at
       LIMIT $2)
     RETURNING 1`,
    [olderThanMs, limit],
  );
  return rows.length;
}
