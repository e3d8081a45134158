import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { isLoopbackAddress, isPublicAddress } from "@runifold/sdk";
import { isLoopbackHostname, type MetadataDocumentPolicy } from "./config";

export type GuardedFetchResult =
  | { ok: true; body: Uint8Array; contentType: string; cacheControl: string }
  | { ok: false; reason: string };

/**
 * GET of a URL a client handed us (a Client ID Metadata Document), made safe against SSRF:
 * - https only; http (and any port) only for a literal loopback host when the policy allows loopback;
 * - the host is resolved first and EVERY address must be public (loopback ones only for a literal
 *   loopback host with loopback allowed); the connection then goes to that checked address, so a
 *   second DNS answer (rebinding) cannot redirect it; TLS still verifies the certificate for the name;
 * - redirects are never followed (a 3xx is a failure);
 * - the whole exchange is aborted after `timeoutMs`, the body after `maxBytes` (read as a stream).
 */
export async function guardedFetch(url: URL, policy: MetadataDocumentPolicy): Promise<GuardedFetchResult> {
  const loopbackHost = isLoopbackHostname(url.hostname);
  if (loopbackHost && !policy.allowLoopback) return { ok: false, reason: "loopback hosts are not allowed" };
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopbackHost)) {
    return { ok: false, reason: "the URL must use https" };
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), policy.timeoutMs);
  try {
    // DNS cannot be cancelled: race it against the deadline so a slow resolver is a timeout too.
    const address = await untilAborted(resolveCheckedAddress(url, loopbackHost, policy), controller.signal);
    if (typeof address !== "string") return address;
    return await get(url, address, policy.maxBytes, controller.signal);
  } catch {
    if (controller.signal.aborted) return { ok: false, reason: `no answer within ${policy.timeoutMs} ms` };
    // Not the error's own text: "connect ECONNREFUSED 10.0.0.5:22" would map the server's network for anyone.
    return { ok: false, reason: "the document could not be fetched" };
  } finally {
    clearTimeout(timer);
  }
}

async function resolveCheckedAddress(
  url: URL,
  loopbackHost: boolean,
  policy: MetadataDocumentPolicy,
): Promise<string | { ok: false; reason: string }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = isIP(host) ? [host] : (await (policy.lookup ?? systemLookup)(host)).map((entry) => entry.address);
  if (addresses.length === 0) return { ok: false, reason: "the host has no address" };
  const allowed = loopbackHost ? isLoopbackAddress : isPublicAddress;
  const refused = addresses.find((address) => !allowed(address));
  if (refused !== undefined) return { ok: false, reason: `the host resolves to a non-public address (${refused})` };
  return addresses[0] as string;
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function systemLookup(hostname: string) {
  return dnsLookup(hostname, { all: true, verbatim: true });
}

function get(url: URL, address: string, maxBytes: number, signal: AbortSignal): Promise<GuardedFetchResult> {
  const client = url.protocol === "https:" ? https : http;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return new Promise((resolve, reject) => {
    const request = client.request(
      {
        host: address,
        port: url.port || (url.protocol === "https:" ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: "GET",
        // SNI and certificate verification use the name, the socket the checked address.
        ...(url.protocol === "https:" && !isIP(host) ? { servername: host } : {}),
        headers: { host: url.host, accept: "application/json", "user-agent": "runifold-oauth" },
        signal,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          response.destroy();
          const reason = status >= 300 && status < 400 ? `redirects are not followed (HTTP ${status})` : `HTTP ${status}`;
          resolve({ ok: false, reason });
          return;
        }
        if (Number(response.headers["content-length"] ?? "0") > maxBytes) {
          response.destroy();
          resolve({ ok: false, reason: `the document is larger than ${maxBytes} bytes` });
          return;
        }
        const chunks: Buffer[] = [];
        let total = 0;
        response.on("data", (chunk: Buffer) => {
          total += chunk.byteLength;
          if (total > maxBytes) {
            response.destroy();
            resolve({ ok: false, reason: `the document is larger than ${maxBytes} bytes` });
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          resolve({
            ok: true,
            body: new Uint8Array(Buffer.concat(chunks)),
            contentType: String(response.headers["content-type"] ?? ""),
            cacheControl: String(response.headers["cache-control"] ?? ""),
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end();
  });
}
