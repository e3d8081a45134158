import type { OAuthConfig } from "next-auth/providers/oauth";
import type { TokenSet } from "openid-client";
import { OIDC_PROVIDER_ID, type OidcSettings } from "./oidc-settings";
import type { SsoClaims } from "./sso-sign-in";

type OidcProfile = SsoClaims & { sub?: string };

/**
 * next-auth's generic OIDC provider for operator single sign-on: discovery from the issuer, the
 * authorization code flow with PKCE and state (next-auth keeps both in short-lived cookies and
 * checks them on the callback), the ID token verified by openid-client (signature, issuer,
 * audience, expiry). The claims handed to the signIn callback are the ID token's, completed from
 * the userinfo endpoint: many providers put `email_verified` or the groups only there. The ID
 * token's value wins where both have one, and openid-client refuses a userinfo answer about
 * another subject. Who the person is in Runifold is decided later, by lib/auth/sso-sign-in.ts.
 */
export function oidcProvider(settings: OidcSettings): OAuthConfig<OidcProfile> {
  return {
    id: OIDC_PROVIDER_ID,
    name: settings.name,
    type: "oauth",
    wellKnown: `${settings.issuer}/.well-known/openid-configuration`,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    authorization: { params: { scope: settings.scopes } },
    idToken: true,
    checks: ["pkce", "state"],
    userinfo: {
      async request({ client, tokens: parameters }) {
        // next-auth types the token set by its parameters; with idToken it is openid-client's TokenSet.
        const tokens = parameters as TokenSet;
        const fromIdToken = tokens.claims() as OidcProfile;
        if (!client.issuer.metadata.userinfo_endpoint || !tokens.access_token) return fromIdToken;
        const fromUserinfo = (await client.userinfo(tokens)) as OidcProfile;
        return { ...fromUserinfo, ...fromIdToken };
      },
    },
    // next-auth requires an id here; the operator id replaces it once the signIn callback has mapped the person.
    profile(profile) {
      const email = profile[settings.emailClaim];
      return {
        id: typeof profile.sub === "string" ? profile.sub : "",
        email: typeof email === "string" ? email : null,
        name: typeof profile.name === "string" ? profile.name : null,
      };
    },
  };
}
