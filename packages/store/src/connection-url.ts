/**
 * DATABASE_URL as PostgreSQL (libpq) and postgres.js read it, which WHATWG `new URL()` cannot:
 * a URL naming several hosts for failover (`postgres://u:p@h1:5432,h2:5432/db?target_session_attrs=read-write`)
 * is "Invalid URL" to `new URL()`, so every place that rewrites or prints the store's URL goes
 * through here instead (DESIGN §8 "Database"; docs/deploy.md "High availability").
 *
 * The shape: `postgres[ql]://[user[:password]@]host[:port][,host[:port]…][/database][?params]`. The
 * credentials end at the last `@` before the host list, as in libpq, so a password with an
 * unencoded `@` still parses; user and password stay percent-encoded here.
 */
export type ConnectionUrl = {
  scheme: string;
  user: string;
  password: string;
  /** `host` or `host:port` (or `[v6]:port`), in the URL's order. */
  hosts: string[];
  /** Everything from the `/` of the database name on (database and parameters), or "". */
  rest: string;
};

const SHAPE = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/s;

export function parseConnectionUrl(url: string): ConnectionUrl {
  const match = SHAPE.exec(url);
  if (!match) throw new Error("not a postgres:// URL");
  const [, scheme = "", authority = "", rest = ""] = match;
  const at = authority.lastIndexOf("@");
  const userinfo = at === -1 ? "" : authority.slice(0, at);
  const hostList = at === -1 ? authority : authority.slice(at + 1);
  const colon = userinfo.indexOf(":");
  const hosts = hostList.split(",").filter((host) => host.length > 0);
  if (hosts.length === 0 && !/[?&]host=/.test(rest)) throw new Error("the URL names no host");
  return {
    scheme,
    user: colon === -1 ? userinfo : userinfo.slice(0, colon),
    password: colon === -1 ? "" : userinfo.slice(colon + 1),
    hosts,
    rest,
  };
}

export function formatConnectionUrl(parts: ConnectionUrl): string {
  const userinfo = parts.user || parts.password ? `${parts.user}${parts.password ? `:${parts.password}` : ""}@` : "";
  return `${parts.scheme}${userinfo}${parts.hosts.join(",")}${parts.rest}`;
}

/** `url` with another user and password; every host, the database and the parameters kept. */
export function withUser(url: string, user: string, password: string): string {
  const parts = parseConnectionUrl(url);
  return formatConnectionUrl({ ...parts, user: encodeURIComponent(user), password: encodeURIComponent(password) });
}

/** `url` with its password replaced by `***`, for messages and logs (secrets are never printed). */
export function redactConnectionUrl(url: string): string {
  try {
    const parts = parseConnectionUrl(url);
    const rest = parts.rest.replace(/([?&]password=)[^&#]*/gi, "$1***");
    return formatConnectionUrl({ ...parts, password: parts.password ? "***" : "", rest });
  } catch {
    return "(unparseable URL)";
  }
}

/** The hosts and the database of `url`, never its credentials: enough to recognise the store. */
export function describeConnectionUrl(url: string): string {
  try {
    const parts = parseConnectionUrl(url);
    return `${parts.hosts.join(",")}${parts.rest.replace(/[?#].*$/s, "")}`;
  } catch {
    return "(unparseable URL)";
  }
}
