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

/** Only the requests this client declared it can answer (the rest stay pending for other channels). */
export function answerableInputRequests(
  requests: Record<string, InputRequest>,
  declared: Record<string, unknown>,
): Record<string, InputRequest> {
  return Object.fromEntries(
    Object.entries(requests).filter(([, request]) => {
      const capability = capabilityFor(request.method);
      return capability !== undefined && isRecord(declared[capability]);
    }),
  );
}
