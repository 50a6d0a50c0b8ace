import OAuth2Server from '@node-oauth/oauth2-server';
import express, { Router } from 'express';
import { authOf, type Guard } from '../../http/authenticate.js';
import { AppError } from '../../http/errors.js';
import { parseInput } from '../../http/validation.js';
import { refreshRequestSchema, revokeRequestSchema, tokenRequestSchema } from './auth.schemas.js';
import { unwrapOAuthError, type TokenService } from './tokens.service.js';

/** POST /api/v1/auth/{token,refresh,revoke}: the specification's JSON token endpoints. */
export function authRoutes(tokens: TokenService, guard: Guard): Router {
  const router = Router();

  router.post('/auth/token', async (req, res) => {
    const body = parseInput(tokenRequestSchema, req.body ?? {});
    const data = await tokens.issueTokenPair(body.client_key, body.client_secret);
    res.set('Cache-Control', 'no-store').json({ success: true, data });
  });

  router.post('/auth/refresh', async (req, res) => {
    const body = parseInput(refreshRequestSchema, req.body ?? {});
    const data = await tokens.refreshTokenPair(body.refresh_token);
    res.set('Cache-Control', 'no-store').json({ success: true, data });
  });

  router.post('/auth/revoke', guard(null), async (req, res) => {
    const body = parseInput(revokeRequestSchema, req.body ?? {});
    const auth = authOf(res);
    if (body.token_type === 'all') {
      await tokens.model.revokeAllOfClient(auth.clientId);
      res.json({ success: true, message: 'İstemcinin tüm belirteçleri iptal edildi.' });
    } else {
      await tokens.model.revokeAccessToken(auth.tokenId);
      res.json({ success: true, message: 'Belirteç iptal edildi.' });
    }
  });

  return router;
}

/**
 * POST /oauth/token: standard OAuth 2.0 (RFC 6749) for off-the-shelf clients. Form body, client
 * authentication by HTTP Basic or form fields, errors in RFC 6749 shape.
 */
export function oauthRoutes(tokens: TokenService): Router {
  const router = Router();
  router.post(
    '/oauth/token',
    express.urlencoded({ extended: false, limit: '100kb' }),
    async (req, res) => {
      const response = new OAuth2Server.Response();
      try {
        await tokens.server.token(new OAuth2Server.Request(req), response);
      } catch (error) {
        const inner = unwrapOAuthError(error);
        if (inner instanceof AppError && inner.status === 403) {
          res.status(400).json({ error: 'unauthorized_client', error_description: inner.message });
          return;
        }
        if (!(inner instanceof OAuth2Server.OAuthError) || inner.name === 'server_error')
          throw inner;
      }
      res.set(response.headers as Record<string, string>);
      res.status(response.status ?? 200).json(response.body);
    },
  );
  return router;
}
