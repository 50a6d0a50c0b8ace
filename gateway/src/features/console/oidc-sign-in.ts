// Operators' sign-in through an OpenID Connect provider (CONSOLE_OIDC_*): the authorization code
// flow with PKCE, a state and a nonce, by openid-client. What a flow must remember between the
// redirect to the provider and its answer (verifier, state, nonce) is kept in Redis for ten
// minutes under the keyed hash (SECRETS_KEY) of a random value held in a cookie of that browser,
// and spent by the answer (GETDEL): a flow is finished once, by the browser that began it.
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Config } from '#common/config.js';
import type { RedisClient } from '#common/redis.js';
import { keyedDigests } from '#common/secrets-key.js';
import type { LinkKeys } from '../../pages/sign-in-links.js';

export type OidcSettings = NonNullable<Config['console']['oidc']>;

/** How long an operator has at the provider before the flow must begin again. */
export const FLOW_TTL_MS = 10 * 60_000;

interface PendingFlow {
  verifier: string;
  state: string;
  nonce: string;
}

/** Why a provider's answer did not sign anyone in. */
/** Why a sign-in was refused; the page words it in its language (oidc.routes.tsx). */
export type OidcReason =
  | { key: 'unbound' }
  | { key: 'unconfirmed' }
  | { key: 'no-email' }
  | { key: 'unverified'; email: string }
  | { key: 'not-allowed'; email: string };

/** The refusal as the operator audit records it. */
function recorded(reason: OidcReason): string {
  switch (reason.key) {
    case 'unbound':
      return 'this sign-in was not begun here, or took too long';
    case 'unconfirmed':
      return 'the provider did not confirm this sign-in';
    case 'no-email':
      return 'the provider gave no e-mail address';
    case 'unverified':
      return `the provider has not verified ${reason.email}`;
    case 'not-allowed':
      return `${reason.email} may not sign in to this console`;
  }
}

export class OidcRefusal extends Error {
  constructor(
    readonly reason: OidcReason,
    options?: ErrorOptions,
  ) {
    super(recorded(reason), options);
  }
}

/**
 * An answer no flow of this browser waits for (no cookie, an unknown or spent one): anyone can
 * send it, so it is refused without an audit record (oidc.routes.tsx).
 */
export class UnboundAnswer extends OidcRefusal {}

/**
 * Whether the provider vouches for the address: `true`, or the text "true" that some userinfo
 * endpoints send (Amazon Cognito's); a missing claim, or anything else, is not verified.
 */
export function isVerified(claim: unknown): boolean {
  return claim === true || claim === 'true';
}

/** An address is let in when it is listed, or its domain is (`@example.com`). */
export function isAllowedOperator(email: string, allowed: readonly string[]): boolean {
  const address = email.toLowerCase();
  return allowed.includes(address) || allowed.includes(address.slice(address.lastIndexOf('@')));
}

/** The Redis keys a flow may be under, one per key of SECRETS_KEY, the current one first. */
const flowKeys = (where: LinkKeys, binding: string) =>
  keyedDigests(where.secretsKeys, 'console oidc flow', binding).map(
    (digest) => `${where.prefix}:pages:oidc:${digest}`,
  );

/** The flow a binding names, spent; null when none waits (unknown, spent or expired). */
async function spendFlow(redis: RedisClient, where: LinkKeys, binding: string) {
  for (const key of flowKeys(where, binding)) {
    const stored = await redis.getdel(key);
    if (stored !== null) return JSON.parse(stored) as PendingFlow;
  }
  return null;
}

/**
 * The provider's metadata, fetched on the first sign-in (a provider that is down then does not
 * keep the gateway from starting) and kept; a failed fetch is tried again by the next sign-in.
 */
export function oidcProvider(settings: OidcSettings) {
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () => {
    discovered ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        settings.clientSecret,
        undefined,
        // The configuration admits http only for a provider on this host.
        settings.issuer.startsWith('http:') ? { execute: [oidc.allowInsecureRequests] } : {},
      )
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  };

  return {
    /** Where to send the browser, and the binding its cookie keeps until the answer. */
    async begin(redis: RedisClient, where: LinkKeys, redirectUri: string) {
      const config = await configuration();
      const flow: PendingFlow = {
        verifier: oidc.randomPKCECodeVerifier(),
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
      };
      const binding = randomBytes(32).toString('base64url');
      await redis.set(flowKeys(where, binding)[0]!, JSON.stringify(flow), 'PX', FLOW_TTL_MS);
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email',
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      });
      return { url: url.href, binding };
    },

    /**
     * The provider's answer at `currentUrl`: the code exchanged (with the verifier, the state and
     * the nonce checked), and the e-mail address the provider vouches for, if it is allowed.
     */
    async finish(
      redis: RedisClient,
      where: LinkKeys,
      binding: string | undefined,
      currentUrl: URL,
    ): Promise<string> {
      const flow = binding ? await spendFlow(redis, where, binding) : null;
      if (flow === null) throw new UnboundAnswer({ key: 'unbound' });
      const config = await configuration();
      let tokens;
      try {
        tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw new OidcRefusal({ key: 'unconfirmed' }, { cause: error });
      }
      const claims = tokens.claims()!;
      // A provider may keep the address for its userinfo endpoint (OpenID Connect Core 5.4).
      const profile =
        typeof claims.email === 'string'
          ? claims
          : await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      if (typeof profile.email !== 'string') throw new OidcRefusal({ key: 'no-email' });
      // An unverified address may be anyone's (many providers let a user type one in); the
      // operator may name accounts whose provider never verifies (CONSOLE_OIDC_ALLOWED_SUBS).
      if (!isVerified(profile.email_verified) && !settings.allowedSubs.includes(claims.sub))
        throw new OidcRefusal({ key: 'unverified', email: profile.email });
      if (!isAllowedOperator(profile.email, settings.allowed))
        throw new OidcRefusal({ key: 'not-allowed', email: profile.email });
      return profile.email.toLowerCase();
    },
  };
}

export type OidcProvider = ReturnType<typeof oidcProvider>;
