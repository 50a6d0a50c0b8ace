// Token issue, refresh and revoke, driven by @node-oauth/oauth2-server. The specification's JSON
// endpoints are adapted to the library's form-encoded token request here, and its OAuth errors
// are turned into the specification's codes.
import OAuth2Server from '@node-oauth/oauth2-server';
import pLimit from 'p-limit';
import type { z } from 'zod';
import { classesOf, clientClasses } from '#api/data-classes.js';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import type { RequestClient } from '../../http/access-log.js';
import {
  AppError,
  insufficientScope,
  invalidToken,
  serviceUnavailable,
} from '../../http/errors.js';
import type { Logger } from '#common/logger.js';
import type { ClientEpochs } from '../../trust/client-epochs.js';
import type { tokenDataSchema } from './auth.schemas.js';
import type { IssueLimit } from './issue-limit.js';
import type { ClientSecrets } from '../../trust/client-secrets.js';
import { earlierTokens } from '../../trust/earlier-tokens.js';
import { createOAuthModel } from './oauth-model.js';
import type { OAuthClient } from './oauth-model-deps.js';
import { createTokenChecks } from '../../trust/token-checks.js';
import { RefreshableClientCredentialsGrant } from './refreshable-client-credentials.grant.js';

/**
 * Token requests one process works on at once, of all three token endpoints together; the others
 * wait their turn, costing no CPU meanwhile (decision 0003). A token costs about twice a read's
 * CPU: unbounded, a storm of good requests from many clients takes the event loop from every other
 * partner's reads.
 */
export const TOKEN_REQUESTS_AT_ONCE = 4;

/** Whether the request's client has gone: a pair issued for it now would reach nobody. */
export type ClientGone = () => boolean;

/** A token pair, and the client it was issued to (the request is logged and counted under it). */
export interface IssuedTokens {
  data: TokenData;
  client: RequestClient;
}

export type TokenData = z.infer<typeof tokenDataSchema>;

/** The library reads only form bodies; its content-length check needs a non-empty body. */
export function formRequest(
  body: Record<string, string>,
  headers: Record<string, string> = {},
): OAuth2Server.Request {
  return new OAuth2Server.Request({
    method: 'POST',
    query: {},
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': '1',
      ...headers,
    },
    body,
  });
}

function innerOf(error: OAuth2Server.OAuthError): unknown {
  return (error as { inner?: unknown }).inner;
}

/** Our own errors thrown inside model functions arrive wrapped in the library's ServerError. */
export function unwrapOAuthError(error: unknown): unknown {
  if (error instanceof OAuth2Server.OAuthError && innerOf(error) instanceof AppError)
    return innerOf(error);
  return error;
}

/** OAuth errors -> the specification's error codes (for the JSON /api/v1/auth endpoints). */
function toAppError(error: unknown): unknown {
  const inner = unwrapOAuthError(error);
  if (inner instanceof AppError || !(inner instanceof OAuth2Server.OAuthError)) return inner;
  switch (inner.name) {
    case 'invalid_client':
    case 'invalid_grant':
    case 'invalid_token':
    case 'unauthorized_request':
    case 'invalid_request':
      return invalidToken('İstemci bilgileri veya belirteç geçersiz.');
    case 'unauthorized_client':
    case 'invalid_scope':
    case 'insufficient_scope':
      return insufficientScope();
    default:
      return new AppError({
        status: 500,
        code: 'SERVER_ERROR',
        message: 'Beklenmeyen bir hata oluştu.',
        cause: inner,
      });
  }
}

/** The client a token was issued to. */
export function clientOfToken(token: OAuth2Server.Token): RequestClient {
  const { record } = token.client as OAuthClient;
  return { clientId: record.id, clientKey: record.client_key };
}

/** The specification's token answer for a pair the library issued. */
function toTokenData(tokens: Config['tokens'], token: OAuth2Server.Token): TokenData {
  const client = token.client as OAuthClient;
  return {
    access_token: token.accessToken,
    refresh_token: token.refreshToken ?? '',
    token_type: 'Bearer',
    expires_in: tokens.accessTtlSeconds,
    // Shorter than the refresh lifetime near the end of the chain (REFRESH_CHAIN_MAX_DAYS).
    refresh_expires_in: Math.min(
      tokens.refreshTtlSeconds,
      Math.max(
        0,
        Math.ceil(((token.refreshTokenExpiresAt?.getTime() ?? Infinity) - Date.now()) / 1000),
      ),
    ),
    scopes: token.scope ?? [],
    branch_id: client.record.branch_id,
    data_classes: classesOf(clientClasses(client.record)),
  };
}

export function createTokenService(deps: {
  db: ReadModelClient;
  config: Config;
  epochs: ClientEpochs;
  logger: Logger;
  issueLimit: IssueLimit;
  secrets: ClientSecrets;
}) {
  const model = createOAuthModel({
    ...deps,
    checks: createTokenChecks(deps.config.secrets.keys),
    earlier: earlierTokens(deps.db),
    chainMaxMs: deps.config.tokens.chainMaxMs,
  });
  const server = new OAuth2Server({
    model,
    accessTokenLifetime: deps.config.tokens.accessTtlSeconds,
    refreshTokenLifetime: deps.config.tokens.refreshTtlSeconds,
    alwaysIssueNewRefreshToken: true,
  });

  const issued = (token: OAuth2Server.Token): IssuedTokens => ({
    data: toTokenData(deps.config.tokens, token),
    client: clientOfToken(token),
  });

  const inTurn = pLimit(TOKEN_REQUESTS_AT_ONCE);
  /**
   * The library's grant, every endpoint's way to it: in turn with this process's others. A request
   * whose client left while it waited gives its turn up: in a storm, clients that time out and
   * ask again would otherwise have every pair made twice, and count twice against their limit.
   */
  const grant = (
    request: OAuth2Server.Request,
    response: OAuth2Server.Response,
    gone: ClientGone,
    options?: OAuth2Server.TokenOptions,
  ) =>
    inTurn(() =>
      gone()
        ? Promise.reject(serviceUnavailable(1, 'İstemci yanıtı beklemeden ayrıldı.'))
        : server.token(request, response, options),
    );

  /** A grant of the specification's JSON endpoints, its OAuth errors as their codes. */
  async function jsonGrant(
    request: OAuth2Server.Request,
    gone: ClientGone,
    options: OAuth2Server.TokenOptions,
  ): Promise<IssuedTokens> {
    try {
      return issued(await grant(request, new OAuth2Server.Response(), gone, options));
    } catch (error) {
      throw toAppError(error);
    }
  }

  return {
    model,

    /** POST /oauth/token's request as the library takes it. */
    oauthToken: (
      request: OAuth2Server.Request,
      response: OAuth2Server.Response,
      gone: ClientGone,
    ) => grant(request, response, gone),

    issueTokenPair: (
      clientKey: string,
      clientSecret: string,
      gone: ClientGone,
    ): Promise<IssuedTokens> =>
      jsonGrant(
        formRequest({
          grant_type: 'client_credentials',
          client_id: clientKey,
          client_secret: clientSecret,
        }),
        gone,
        { extendedGrantTypes: { client_credentials: RefreshableClientCredentialsGrant } },
      ),

    async refreshTokenPair(refreshToken: string, gone: ClientGone): Promise<IssuedTokens> {
      const clientKey = await model.clientKeyOfRefreshToken(refreshToken);
      if (!clientKey) throw invalidToken();
      const request = formRequest({
        grant_type: 'refresh_token',
        client_id: clientKey,
        refresh_token: refreshToken,
      });
      // The specification's refresh call carries no client credentials: the refresh token
      // itself, bound to its client and rotated on use, is the proof.
      return jsonGrant(request, gone, { requireClientAuthentication: { refresh_token: false } });
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
