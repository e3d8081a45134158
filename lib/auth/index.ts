export type { Principal, Scope } from "./api-keys";
export { createApiKey, isScope, SCOPES, verifyApiKey } from "./api-keys";
export { authenticateOperator, clientAddressFrom, LOGIN_THROTTLE } from "./authenticate-operator";
export type { OperatorContext } from "./operator-context";
export { hashPassword, verifyPassword } from "./passwords";
export type { Operator, RequireOperatorOptions } from "./require-operator";
export { requireOperator } from "./require-operator";
