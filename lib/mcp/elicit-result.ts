import type { InputResponse } from "@runifold/sdk";
import { isRecord } from "./json-rpc";

/**
 * The shape of an elicitation result (both eras: 2025-11-25 client/elicitation.mdx ElicitResult;
 * 2026-07-28 inputResponses): `action` is accept, decline or cancel, and `content`, when present, is
 * an object. Whether the content fits the request's schema is validateInputResponse's question.
 */
export function isElicitResult(value: unknown): value is InputResponse {
  if (!isRecord(value)) return false;
  if (value.action !== "accept" && value.action !== "decline" && value.action !== "cancel") return false;
  return value.content === undefined || isRecord(value.content);
}
