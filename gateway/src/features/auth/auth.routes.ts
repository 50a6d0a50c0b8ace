import OAuth2Server from '@node-oauth/oauth2-server';
import express, { Router, type ErrorRequestHandler } from 'express';
import { identifyClient } from '../../http/access-log.js';
import { isDecompressionError } from '../../http/error-handler.js';
import { AppError } from '../../http/errors.js';
import { refuseNulBytes } from '../../http/hostile-input.js';
import { countFailedAttempt, oauthClientId, type AuthThrottle } from './auth-throttle.js';
import { decodeBasicCredentials, refuseRepeatedParameters } from './oauth-request.js';
import { clientOfToken, unwrapOAuthError, type TokenService } from './tokens.service.js';

/**
 * POST /oauth/token: standard OAuth 2.0 (RFC 6749) for off-the-shelf clients. Form body, client
 * authentication by HTTP Basic or form fields, answers and errors in RFC 6749 shape.
 */
export function oauthRoutes(tokens: TokenService, throttle: AuthThrottle): Router {
  const router = Router();
  router.post(
    '/oauth/token',
    express.urlencoded({ extended: false, limit: '100kb' }),
    refuseRepeatedParameters,
    refuseNulBytes,
    decodeBasicCredentials,
    ...throttle(oauthClientId),
    async (req, res) => {
      const response = new OAuth2Server.Response();
      try {
        const token = await tokens.oauthToken(
          new OAuth2Server.Request(req),
          response,
          () => res.closed,
        );
        identifyClient(res, clientOfToken(token));
      } catch (error) {
        const inner = unwrapOAuthError(error);
        const refusal = await countFailedAttempt(res, answeredStatus(inner));
        if (refusal) throw refusal;
        if (inner instanceof AppError && inner.status === 403) {
          // A disabled client, or one holding no scope, authenticated but may not get tokens.
          res.status(400).json({ error: 'unauthorized_client', error_description: inner.message });
          return;
        }
        if (!(inner instanceof OAuth2Server.OAuthError) || inner.name === 'server_error')
          throw inner;
        // The library fills the response only for some failures (not for a non-form body), so
        // the error body is built here from the error itself; headers (WWW-Authenticate) stay.
        res.set(response.headers as Record<string, string>);
        res.status(inner.code).json({ error: inner.name, error_description: inner.message });
        return;
      }
      res.set(response.headers as Record<string, string>);
      res.status(response.status ?? 200).json(rfc6749Body(response.body));
    },
  );
  router.use('/oauth', oauthErrors);
  return router;
}

/** The status a failure inside the library is answered with (403 becomes 400), 500 for ours. */
function answeredStatus(inner: unknown): number {
  if (inner instanceof AppError) return inner.status === 403 ? 400 : inner.status;
  return inner instanceof OAuth2Server.OAuthError && inner.name !== 'server_error'
    ? inner.code
    : 500;
}

/** The library answers scopes as an array; RFC 6749 §3.3 wants one space-delimited string. */
function rfc6749Body(body: unknown): unknown {
  const scope = (body as { scope?: unknown } | undefined)?.scope;
  return Array.isArray(scope) ? { ...(body as object), scope: scope.join(' ') } : body;
}

/** Failures before the library runs (body parser, throttle) in RFC 6749 §5.2 shape too. */
const oauthErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  if (error instanceof AppError && error.status === 429) {
    // slow_down is the registered token-endpoint error for "back off" (RFC 8628 §3.5).
    res.set('Retry-After', String(error.retryAfter ?? 60));
    res.status(429).json({ error: 'slow_down', error_description: error.message });
    return;
  }
  if (error instanceof AppError && error.status === 400) {
    res.status(400).json({ error: 'invalid_request', error_description: error.message });
    return;
  }
  const parserError = error as { type?: unknown; status?: unknown };
  if (isDecompressionError(error)) {
    res.status(400).json({
      error: 'invalid_request',
      error_description: 'Invalid request: the form body could not be decompressed',
    });
    return;
  }
  if (typeof parserError.type === 'string' && typeof parserError.status === 'number') {
    if (parserError.status < 500) {
      res.status(parserError.status === 413 ? 413 : 400).json({
        error: 'invalid_request',
        error_description: 'Invalid request: the form body could not be read',
      });
      return;
    }
  }
  next(error);
};
