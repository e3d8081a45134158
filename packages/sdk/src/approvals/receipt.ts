import { CompactSign, compactVerify, createLocalJWKSet, decodeProtectedHeader, type JWK } from "jose";
import type { ApprovalChannel, ApprovalOutcome, Decision } from "./policy";
import type { SigningKey } from "./signing-keys";

/** One decision as the receipt and ctx.requestApproval give it. */
export type ApprovalDecision = {
  operatorId: string;
  email: string;
  channel: ApprovalChannel;
  decision: Decision;
  comment: string | null;
  at: string;
};

/** The signed payload (DESIGN §8): exactly these fields. Digests: base64url SHA-256 of RFC 8785 JSON (digest.ts). */
export type ReceiptPayload = {
  iss: string;
  sub: string;
  tenant: string;
  tool: string | null;
  workflow: string;
  version: number;
  routeRevision: number | null;
  argsDigest: string;
  detailsDigest: string;
  policyDigest: string;
  key: string;
  outcome: ApprovalOutcome;
  decisions: ApprovalDecision[];
  decidedAt: string;
};

/** The receipt's media type, in the JWS header's `typ`. */
export const RECEIPT_TYPE = "runifold-approval+jws";

/** A compact JWS, ES256, header `{ alg, kid, typ }`. */
export async function signReceipt(payload: ReceiptPayload, key: SigningKey): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: RECEIPT_TYPE })
    .sign(key.privateKey);
}

export type ReceiptVerification = { valid: true; kid: string; payload: ReceiptPayload } | { valid: false; reason: string };

const FIELDS: (keyof ReceiptPayload)[] = [
  "iss",
  "sub",
  "tenant",
  "tool",
  "workflow",
  "version",
  "routeRevision",
  "argsDigest",
  "detailsDigest",
  "policyDigest",
  "key",
  "outcome",
  "decisions",
  "decidedAt",
];

/**
 * Checks a receipt offline against a JWKS (`{ keys: [...] }`, as GET
 * /.well-known/runifold/approvals-jwks.json serves it): the signature by the key its `kid` names,
 * ES256 only, and a payload of the receipt's shape. Never throws.
 */
export async function verifyReceipt(jws: string, jwks: { keys: JWK[] }): Promise<ReceiptVerification> {
  try {
    const header = decodeProtectedHeader(jws.trim());
    if (header.typ !== RECEIPT_TYPE) return { valid: false, reason: `not an approval receipt (typ ${String(header.typ)})` };
    const { payload, protectedHeader } = await compactVerify(jws.trim(), createLocalJWKSet(jwks), { algorithms: ["ES256"] });
    const parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload)) as ReceiptPayload;
    const missing = FIELDS.filter((field) => !(field in parsed));
    if (missing.length > 0) return { valid: false, reason: `the payload lacks ${missing.join(", ")}` };
    if (!["approved", "rejected", "expired"].includes(parsed.outcome) || !Array.isArray(parsed.decisions))
      return { valid: false, reason: "the payload is not an approval receipt" };
    return { valid: true, kid: String(protectedHeader.kid), payload: parsed };
  } catch (error) {
    return { valid: false, reason: (error as Error).message || "invalid receipt" };
  }
}
