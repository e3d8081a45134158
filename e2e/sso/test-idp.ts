import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/**
 * A real OpenID provider (panva's oidc-provider, the certified implementation) on loopback, as the
 * operators' identity provider in e2e/sso.spec.ts. Its development interactions are the login and
 * consent pages the test fills in Chromium: the login takes any password, and the login name picks
 * the person whose claims the provider then asserts (`people`). Plain http on 127.0.0.1: the
 * provider allows it, and so do openid-client's discovery and the app's redirect URI.
 *
 * It listens before the app starts (the app's env needs the issuer) and is configured once the
 * app's origin, and so the client's redirect URI, is known (`configure`); the app only contacts the
 * issuer when someone signs in.
 */
export type Person = { email?: string; email_verified?: boolean; name?: string; groups?: string[] };

export type TestIdp = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Login name → the claims asserted for that person (add people at any time). */
  people: Map<string, Person>;
  configure(redirectUri: string): void;
  close(): Promise<void>;
};

export async function startTestIdp(): Promise<TestIdp> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => {
    if (handler) return handler(req, res);
    res.writeHead(503).end("identity provider not configured yet");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people = new Map<string, Person>();
  const clientId = "runifold-console";
  const clientSecret = randomBytes(24).toString("base64url");

  return {
    issuer,
    clientId,
    clientSecret,
    people,
    configure(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ["authorization_code"],
            response_types: ["code"],
            token_endpoint_auth_method: "client_secret_basic",
          },
        ],
        // The scope → claims table; a scope named here is one the provider offers.
        claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
        features: { devInteractions: { enabled: true } },
        cookies: { keys: [randomBytes(32).toString("base64url")] },
        async findAccount(_ctx, id) {
          const person = people.get(id);
          if (!person) return undefined;
          return { accountId: id, claims: () => ({ sub: id, ...person }) };
        },
      });
      handler = provider.callback();
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
