import type { InputRequest } from "@runifold/sdk";
import { isRecord } from "./json-rpc";

/**
 * Which client capability answering an input request needs, by the request's method (2026-07-28
 * MRTR: `inputRequests` carry elicitation, sampling or roots requests). A server MUST NOT send
 * input requests for capabilities the client did not declare (mrtr.mdx, Server Requirements 7).
 */
const CAPABILITY_OF_METHOD: Readonly<Record<string, string>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

export function capabilityFor(method: string): string | undefined {
  return CAPABILITY_OF_METHOD[method];
}

/** The capabilities in `needed` (by input method) that `declared` lacks, as a requiredCapabilities map. */
export function missingInputCapabilities(
  declared: Record<string, unknown>,
  methods: Iterable<string>,
): Record<string, Record<string, never>> {
  const missing: Record<string, Record<string, never>> = {};
  for (const method of methods) {
    const capability = capabilityFor(method);
    if (capability && !isRecord(declared[capability])) missing[capability] = {};
  }
  return missing;
}

/**
 * The elicitation modes a client declared (2025-11-25 and 2026-07-28 client/elicitation.mdx
 * "Capabilities"): `{form: {}}`, `{url: {}}` or both; "an empty capabilities object is equivalent to
 * declaring support for `form` mode only", so `{}` (and an object naming neither mode) is form.
 */
export function elicitationModes(declared: Record<string, unknown>): { form: boolean; url: boolean } {
  const elicitation = declared.elicitation;
  if (!isRecord(elicitation)) return { form: false, url: false };
  const form = isRecord(elicitation.form);
  const url = isRecord(elicitation.url);
  return form || url ? { form, url } : { form: true, url: false };
}

/**
 * Whether this input request may be sent to a client that declared `declared`: its method's
 * capability is declared and, for elicitation, its mode too ("Servers MUST NOT send elicitation
 * requests with modes that are not supported by the client"; a request without `mode` is form).
 */
export function canAsk(declared: Record<string, unknown>, request: InputRequest): boolean {
  const capability = capabilityFor(request.method);
  if (capability === undefined || !isRecord(declared[capability])) return false;
  if (request.method !== "elicitation/create") return true;
  const params = (request as { params?: { mode?: unknown } }).params;
  const mode = params?.mode ?? "form";
  const modes = elicitationModes(declared);
  return mode === "form" ? modes.form : mode === "url" ? modes.url : false;
}

/** Only the requests this client declared it can answer (the rest stay pending for other channels). */
export function answerableInputRequests(
  requests: Record<string, InputRequest>,
  declared: Record<string, unknown>,
): Record<string, InputRequest> {
  return Object.fromEntries(Object.entries(requests).filter(([, request]) => canAsk(declared, request)));
}
