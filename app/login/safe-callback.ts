/**
 * Where to go after sign-in (ASVS 5.1.5): only a path on this origin. The value is parsed as a URL
 * against the page's origin and refused unless the origin is unchanged; backslashes and control
 * characters are refused before parsing, because WHATWG URL parsing turns `/\evil.com` and
 * `/<TAB>/evil.com` into `//evil.com` (another host).
 */
export const AFTER_SIGN_IN = "/overview";

export function safeCallbackPath(value: string | null | undefined, origin: string): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//")) return AFTER_SIGN_IN;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\\\u0000-\u001f\u007f-\u009f]/.test(value)) return AFTER_SIGN_IN;
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return AFTER_SIGN_IN;
  }
  if (url.origin !== new URL(origin).origin) return AFTER_SIGN_IN;
  return `${url.pathname}${url.search}${url.hash}`;
}
