export type { ApprovalAuditAction } from "./audit";
export { canonicalDigest } from "./digest";
export {
  type ApprovalChannel,
  type ApprovalOutcome,
  type ApprovalPolicy,
  type Approvers,
  type Decision,
  describeApprovers,
  eligibility,
  expiryOutcome,
  type NormalizedPolicy,
  normalizePolicy,
  type Person,
  parseDuration,
  tally,
} from "./policy";
export {
  type ApprovalDecision,
  RECEIPT_TYPE,
  type ReceiptPayload,
  type ReceiptVerification,
  signReceipt,
  verifyReceipt,
} from "./receipt";
export { APPROVAL_SETTLE_BUCKETS } from "./settle-stats";
export { approvalKeyMaterial, readApprovalJwks, rotateApprovalSigningKey } from "./signing-keys";
