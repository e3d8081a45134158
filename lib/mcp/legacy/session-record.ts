/**
 * What a legacy client declared at initialize, as any instance reads it back; `idSha256` names the
 * row (session.ts mints and resolves it). Its own file so the handler's deps (mcp-deps.ts) can name
 * it without importing the code that needs those deps.
 */
export type LegacySession = { idSha256: string; protocolVersion: string; clientCapabilities: Record<string, unknown> };
