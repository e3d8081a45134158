import "server-only";
import { createKey, revokeKey, ZCreateKey, ZRevokeKey } from "../../admin";
import { operatorAction } from "./operator-action";

// Keys of a tenant the operator sees; the token is returned once (the form shows it) and never stored.
export const createKeyAction = operatorAction(ZCreateKey, createKey, { tenantScoped: true });

// The tenant is in the UPDATE's WHERE (lib/admin/api-keys.ts), so another tenant's key id is "not found".
export const revokeKeyAction = operatorAction(ZRevokeKey, revokeKey, { tenantScoped: true });
