// The specification's JSON token endpoints. The standard RFC 6749 form (/oauth/token) is in
// auth.routes.ts: its errors are RFC 6749's, not this API's envelope.
import { z } from 'zod';
import { defineEndpoint } from '../../endpoint-services.js';
import { bodyField } from './auth-throttle.js';
import {
  refreshRequestSchema,
  revokeRequestSchema,
  tokenDataSchema,
  tokenRequestSchema,
} from './auth.schemas.js';

const tokenResponse = z
  .object({ success: z.boolean(), data: tokenDataSchema })
  .meta({ id: 'TokenResponse' });
const messageResponse = z
  .object({ success: z.boolean(), message: z.string() })
  .meta({ id: 'MessageResponse' });

export const createTokenEndpoint = defineEndpoint({
  operationId: 'createToken',
  group: 'auth',
  method: 'POST',
  path: '/auth/token',
  summary: 'İstemci bilgileriyle belirteç çifti alır',
  description:
    'Failed attempts are throttled per IP address, and per client_key and IP address; successful ones per client (60 a minute by default, token and refresh together).',
  access: 'public',
  body: tokenRequestSchema,
  response: tokenResponse,
  errors: [401, 403, 429],
  tables: [],
  before: ({ throttle }) => throttle((req) => bodyField(req, 'client_key')),
  handle: async ({ body, services, setHeader, identify, clientGone }) => {
    const { data, client } = await services.tokens.issueTokenPair(
      body.client_key,
      body.client_secret,
      clientGone,
    );
    identify(client);
    setHeader('Cache-Control', 'no-store');
    return { success: true, data };
  },
});

export const refreshTokenEndpoint = defineEndpoint({
  operationId: 'refreshToken',
  group: 'auth',
  method: 'POST',
  path: '/auth/refresh',
  summary: 'Belirteç çiftini yeniler; eski çift iptal edilir',
  description:
    'A refresh token used after rotation revokes its whole chain (reuse detection). A chain ends 90 days (by default) after the token request that began it.',
  access: 'public',
  body: refreshRequestSchema,
  response: tokenResponse,
  errors: [401, 403, 429],
  tables: [],
  // A refresh names no client; the owner of the presented refresh token is counted instead.
  before: ({ throttle, tokens }) =>
    throttle((req) => {
      const refreshToken = bodyField(req, 'refresh_token');
      return refreshToken ? tokens.model.clientKeyOfRefreshToken(refreshToken) : null;
    }, true),
  handle: async ({ body, services, setHeader, identify, clientGone }) => {
    const { data, client } = await services.tokens.refreshTokenPair(body.refresh_token, clientGone);
    identify(client);
    setHeader('Cache-Control', 'no-store');
    return { success: true, data };
  },
});

export const revokeTokenEndpoint = defineEndpoint({
  operationId: 'revokeToken',
  group: 'auth',
  method: 'POST',
  path: '/auth/revoke',
  summary: 'Belirteci (current) veya istemcinin tüm belirteçlerini (all) iptal eder',
  description:
    'With `all`, every token of the client ends, and so do the webhook subscriptions they created or last pointed at their URL: each is disabled with `disabled_reason` `credentials-ended` until the client enables it again with a new token.',
  access: null,
  body: revokeRequestSchema,
  bodyOptional: true,
  response: messageResponse,
  tables: [],
  handle: async ({ body, auth, services }) => {
    const caller = auth();
    if (body.token_type === 'all') {
      await services.tokens.model.revokeAllOfClient(caller.clientId);
      return { success: true, message: 'İstemcinin tüm belirteçleri iptal edildi.' };
    }
    await services.tokens.model.revokeAccessToken(caller.tokenId, caller.clientId);
    return { success: true, message: 'Belirteç iptal edildi.' };
  },
});
