/** Bodies of the OAuth endpoints are small; anything above this is refused before parsing. */
export const MAX_OAUTH_BODY_BYTES = 16_384;

export type BodyText = { ok: true; text: string } | { ok: false; tooLarge: boolean };

/** Reads at most `maxBytes` of a request body as UTF-8 (the cap applies to what arrives, not to Content-Length alone). */
export async function readBodyText(request: Request, maxBytes = MAX_OAUTH_BODY_BYTES): Promise<BodyText> {
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) return { ok: false, tooLarge: true };
  if (!request.body) return { ok: true, text: "" };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      total += part.value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        return { ok: false, tooLarge: true };
      }
      chunks.push(part.value);
    }
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)) };
  } catch {
    return { ok: false, tooLarge: false };
  }
}

export type FormResult = { ok: true; form: URLSearchParams } | { ok: false; description: string; status: number };

/**
 * An application/x-www-form-urlencoded body (RFC 6749 §3.2: the token endpoint's only format).
 * A parameter sent twice is refused (RFC 6749 §3.1 "MUST NOT be included more than once").
 */
export async function readForm(request: Request): Promise<FormResult> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    return { ok: false, status: 400, description: "the body must be application/x-www-form-urlencoded" };
  }
  const body = await readBodyText(request);
  if (!body.ok) return { ok: false, status: body.tooLarge ? 413 : 400, description: "the body is too large or unreadable" };
  const form = new URLSearchParams(body.text);
  const repeated = firstRepeatedParameter(form);
  if (repeated) return { ok: false, status: 400, description: `parameter ${repeated} is repeated` };
  const nul = firstParameterWithNul(form);
  if (nul !== undefined) return { ok: false, status: 400, description: `parameter ${nul.slice(0, 100)} contains U+0000` };
  return { ok: true, form };
}

export function firstRepeatedParameter(params: URLSearchParams): string | undefined {
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

/** No OAuth parameter may contain U+0000 (RFC 6749 Appendix A); Postgres text cannot hold it either. */
export function firstParameterWithNul(params: URLSearchParams): string | undefined {
  for (const [key, value] of params) if (key.includes("\u0000") || value.includes("\u0000")) return key;
  return undefined;
}
