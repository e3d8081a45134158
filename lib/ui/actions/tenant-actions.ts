import "server-only";
import {
  addMember,
  createOperator,
  createTenant,
  removeMember,
  setOperatorDisabled,
  ZAddMember,
  ZCreateOperator,
  ZCreateTenant,
  ZRemoveMember,
  ZSetOperatorDisabled,
} from "../../admin";
import { operatorAction, rawField } from "./operator-action";

// Tenants, operators and memberships are managed by admins only: an operator's reach is its
// memberships, so changing them (or creating logins) would let it widen its own reach.

export const createTenantAction = operatorAction(ZCreateTenant, createTenant, { role: "admin" });
// Creating an admin needs a recent authentication (ASVS 3.7.1); an operator of some tenants does not.
export const createOperatorAction = operatorAction(ZCreateOperator, createOperator, {
  role: "admin",
  recentAuth: (input) => rawField(input, "role") !== "operator",
});
export const setOperatorDisabledAction = operatorAction(ZSetOperatorDisabled, setOperatorDisabled, { role: "admin" });
export const addMemberAction = operatorAction(ZAddMember, addMember, { role: "admin" });
export const removeMemberAction = operatorAction(ZRemoveMember, removeMember, { role: "admin" });
