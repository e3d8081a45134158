import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";

export type PostOutcome = { statusCode: number; body: string };

/** How much of a receiver's answer is kept for the delivery log. */
const MAX_ANSWER_CHARS = 500;

/**
 * One POST of a webhook to an address checkWebhookUrl approved. The socket goes to that address
 * (never a fresh DNS answer: no rebinding between the check and the connection) while the Host
 * header, SNI and certificate check use the URL's name. Redirects are never followed — the 3xx is
 * the outcome. The whole exchange is bounded by `timeoutMs` and by the attempt's signal.
 */
export function postWebhook(
  url: URL,
  address: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<PostOutcome> {
  const client = url.protocol === "https:" ? https : http;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  return new Promise((resolve, reject) => {
    const request = client.request(
      {
        host: address,
        port: url.port || (url.protocol === "https:" ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: "POST",
        ...(url.protocol === "https:" && !isIP(host) ? { servername: host } : {}),
        headers: {
          ...headers,
          host: url.host,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "runifold-webhooks/1",
        },
        signal,
      },
      (response) => {
        let answer = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (answer.length < MAX_ANSWER_CHARS) answer += chunk.slice(0, MAX_ANSWER_CHARS - answer.length);
        });
        response.on("end", () => resolve({ statusCode: response.statusCode ?? 0, body: answer }));
        response.on("error", reject);
      },
    );
    request.on("error", (error) => {
      reject(signal.aborted && !options.signal.aborted ? new Error(`no answer within ${options.timeoutMs} ms`) : error);
    });
    request.end(body);
  });
}
