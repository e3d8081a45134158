export { SCOPES, createApiKey, isScope, verifyApiKey } from "./api-keys";
export type { Principal, Scope } from "./api-keys";
export { LOGIN_THROTTLE, authenticateOperator, clientAddressFrom } from "./authenticate-operator";
export { authOptions } from "./operator-auth";
export type { OperatorContext } from "./operator-context";
export { hashPassword, verifyPassword } from "./passwords";
export { requireOperator } from "./require-operator";
export type { Operator, RequireOperatorOptions } from "./require-operator";
export { webContext } from "./web-context";
