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
import { operatorAction } from "./operator-action";

// Tenants, operators and memberships are managed by admins only: an operator's reach is its
// memberships, so changing them (or creating logins) would let it widen its own reach.

export const createTenantAction = operatorAction(ZCreateTenant, createTenant, { role: "admin" });
export const createOperatorAction = operatorAction(ZCreateOperator, createOperator, { role: "admin" });
export const setOperatorDisabledAction = operatorAction(ZSetOperatorDisabled, setOperatorDisabled, { role: "admin" });
export const addMemberAction = operatorAction(ZAddMember, addMember, { role: "admin" });
export const removeMemberAction = operatorAction(ZRemoveMember, removeMember, { role: "admin" });
