// The token engine's model: @node-oauth/oauth2-server drives the grants and calls these methods.
// They are written in the files beside this one, by what they do: the client-credentials grant
// (oauth-client-grant.ts: who may obtain tokens and which scopes, the client a secret
// authenticates, the chain a token request begins, the tokens handed out), the refresh grant
// (oauth-refresh-grant.ts: the pair a refresh token is exchanged for, reuse ending its chain),
// and the storage of token pairs in PostgreSQL as digests, rotated and revoked
// (oauth-token-store.ts); oauth-model-deps.ts holds what they share. createOAuthModel only binds
// them to their dependencies.
import type OAuth2Server from '@node-oauth/oauth2-server';
import {
  authenticateClient,
  beginChain,
  grantedScopes,
  issuedToken,
} from './oauth-client-grant.js';
import type { ModelDeps, OAuthClient, OAuthUser } from './oauth-model-deps.js';
import { clientKeyOfRefreshToken, findRefreshablePair } from './oauth-refresh-grant.js';
import { revokeAccessToken, revokeAllOfClient, rotatePair, savePair } from './oauth-token-store.js';

export function createOAuthModel(deps: ModelDeps) {
  return {
    getClient: (clientKey: string, clientSecret: string | undefined | null) =>
      authenticateClient(deps, clientKey, clientSecret),
    getUserFromClient: (client: OAuthClient) => beginChain(deps, client),
    validateScope: (_user: OAuthUser, client: OAuthClient, requested?: string[]) =>
      grantedScopes(client, requested),
    generateAccessToken: () => issuedToken(deps, () => deps.checks.accessToken()),
    generateRefreshToken: (_client: OAuthClient, user: OAuthUser) =>
      issuedToken(deps, () => deps.checks.refreshToken(user.chainId)),
    saveToken: (token: OAuth2Server.Token, client: OAuthClient, user: OAuthUser) =>
      savePair(deps, token, client, user),
    // The library's model type requires it for bearer authentication, which the gateway does
    // itself (http/authenticate.ts with access-tokens.ts); refusing everything is the safe answer.
    getAccessToken: (): Promise<null> => Promise.resolve(null),
    getRefreshToken: (refreshToken: string) => findRefreshablePair(deps, refreshToken),
    revokeToken: (token: OAuth2Server.RefreshToken) => rotatePair(deps, token),
    clientKeyOfRefreshToken: (refreshToken: string) => clientKeyOfRefreshToken(deps, refreshToken),
    revokeAccessToken: (tokenId: string, clientId: number) =>
      revokeAccessToken(deps, tokenId, clientId),
    revokeAllOfClient: (clientId: number) => revokeAllOfClient(deps, clientId),
  };
}

export type OAuthModel = ReturnType<typeof createOAuthModel>;
