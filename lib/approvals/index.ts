export { APPROVAL_FORM_META, approvalForm, type Caller, type CallerDecision, decideAsCaller } from "./caller-approval";
export { operatorOfKeyId, operatorOfPrincipal } from "./person-of-principal";
