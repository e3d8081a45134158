import "server-only";
import { createOperatorToken, revokeOperatorToken, ZCreateOperatorToken, ZRevokeOperatorToken } from "../../admin";
import { operatorAction } from "./operator-action";

// An operator's own API tokens (Account → API tokens): each action acts as the signed-in operator,
// so a token is always minted for, and revoked by, its own operator. Minting needs a recent
// authentication (ASVS 3.7.1), as minting an API key does: a token outlives the session that made it.
export const createOperatorTokenAction = operatorAction(ZCreateOperatorToken, createOperatorToken, { recentAuth: true });

// The operator is in the UPDATE's WHERE (db/queries/operator-api-tokens.ts): anyone else's token is "not found".
export const revokeOperatorTokenAction = operatorAction(ZRevokeOperatorToken, revokeOperatorToken);
