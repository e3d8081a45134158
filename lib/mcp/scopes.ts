import type { Principal, Scope } from "../auth";
import { McpError } from "./json-rpc";

/** Raised as HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` by the auth gate. */
export class InsufficientScope extends McpError {
  constructor(readonly scope: Scope) {
    super(-32600, `Insufficient scope: this request requires the "${scope}" scope`, undefined, 403);
  }
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) throw new InsufficientScope(scope);
}
