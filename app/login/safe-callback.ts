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

/**
 * The login page's `callbackUrl` as a path on this origin. next-auth sends the browser back after a
 * failed sign-in with the absolute URL it stored (`<base>/<path>`); only its path is kept, so even
 * another origin's URL can only name a path here.
 */
export function callbackPathFromQuery(value: string | string[] | undefined): string {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== "string") return AFTER_SIGN_IN;
  let path = raw;
  if (/^https?:\/\//i.test(raw)) {
    try {
      const url = new URL(raw);
      path = `${url.pathname}${url.search}${url.hash}`;
    } catch {
      return AFTER_SIGN_IN;
    }
  }
  return safeCallbackPath(path, PATH_ONLY_ORIGIN);
}

/** Any fixed origin does for checking that a value is a path that stays on its origin. */
const PATH_ONLY_ORIGIN = "http://runifold.invalid";
