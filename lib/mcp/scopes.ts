import type { Principal, Scope } from "../auth";
import { McpError } from "./json-rpc";

/** Raised as HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` by the auth gate. */
export class InsufficientScope extends McpError {
  constructor(readonly scope: Scope) {
    super(-32600, `Insufficient scope: this request requires the "${scope}" scope`, undefined, 403);
  }
}

/**
 * The one scope table of /api/mcp, for both eras: every request needs `mcp`; each task method
 * needs its own scope on top. Both routers check it before dispatching. Needs that depend on the
 * request are checked where they are decided: a tools/call of a route needs `tasks:write`
 * (TASK_CREATION_SCOPE) whether it becomes a task or takes the ordinary path, since either way it
 * starts a durable run (review F2: `mcp` alone ran every tool); the task-handle companion tools
 * check their own (handles/companion-call.ts); a subscriptions/listen naming taskIds needs
 * `tasks:read` (TASK_READ_SCOPE). A client's answer to an elicitation (a JSON-RPC response) needs
 * ANSWER_SCOPE. `mcp` alone connects, discovers and lists tools (docs/oauth.md, "Scopes").
 */
export const METHOD_SCOPES: Readonly<Record<string, readonly Scope[]>> = {
  "tasks/get": ["mcp", "tasks:read"],
  "tasks/result": ["mcp", "tasks:read"],
  "tasks/list": ["mcp", "tasks:read"],
  "tasks/cancel": ["mcp", "tasks:write"],
  "tasks/update": ["mcp", "tasks:write"],
};
const EVERY_REQUEST: readonly Scope[] = ["mcp"];
/** Starting a run: every tools/call of a route, task-augmented or ordinary, in both eras. */
export const TASK_CREATION_SCOPE: Scope = "tasks:write";
export const TASK_READ_SCOPE: Scope = "tasks:read";
export const ANSWER_SCOPE: Scope = "tasks:write";

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes(scope);
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!hasScope(principal, scope)) throw new InsufficientScope(scope);
}

/** Every scope the table lists for `method` (at least `mcp`); the first missing one is refused. */
export function requireMethodScopes(principal: Principal, method: string): void {
  for (const scope of METHOD_SCOPES[method] ?? EVERY_REQUEST) requireScope(principal, scope);
}
