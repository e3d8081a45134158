import "server-only";
import { createKey, revokeKey, ZCreateKey, ZRevokeKey } from "../../admin";
import { operatorAction } from "./operator-action";

// Keys of a tenant the operator sees; the token is returned once (the form shows it) and never stored.
// Minting a key needs a recent authentication (ASVS 3.7.1): a key outlives the session that made it.
export const createKeyAction = operatorAction(ZCreateKey, createKey, { tenantScoped: true, recentAuth: true });

// The tenant is in the UPDATE's WHERE (lib/admin/api-keys.ts), so another tenant's key id is "not found".
export const revokeKeyAction = operatorAction(ZRevokeKey, revokeKey, { tenantScoped: true });
