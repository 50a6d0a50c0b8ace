import OAuth2Server from '@node-oauth/oauth2-server';
import { Router, type RequestHandler, type Response } from 'express';
import type { Scope } from '../features/auth/scopes.js';
import type { TokenService } from '../features/auth/tokens.service.js';
import { dataScopeOf, type DataScope } from './data-scope.js';
import { insufficientScope } from './errors.js';

export interface AuthContext {
  clientId: number;
  clientKey: string;
  tokenId: string;
  scopes: string[];
  dataScope: DataScope;
  rateLimits: { minute: number | null; hour: number | null; day: number | null };
}

/** Bearer token check: sets res.locals.auth, or fails with 401 INVALID_TOKEN. */
export function authenticate(tokens: TokenService): RequestHandler {
  return async (req, res, next) => {
    const token = await tokens.authenticate(
      new OAuth2Server.Request({
        method: req.method,
        query: {},
        headers: { authorization: req.get('authorization') ?? '' },
        body: {},
      }),
    );
    const client = token.client.record;
    const auth: AuthContext = {
      clientId: client.id,
      clientKey: client.client_key,
      tokenId: token.tokenId,
      scopes: token.scope ?? [],
      dataScope: dataScopeOf(client.branch_id),
      rateLimits: {
        minute: client.rate_limit_minute,
        hour: client.rate_limit_hour,
        day: client.rate_limit_day,
      },
    };
    res.locals.auth = auth;
    next();
  };
}

export function authOf(res: Response): AuthContext {
  const auth = res.locals.auth as AuthContext | undefined;
  if (!auth) throw new Error('authOf() used on a route without authenticate()');
  return auth;
}

function requireScope(scope: Scope): RequestHandler {
  return (_req, res, next) => {
    if (!authOf(res).scopes.includes(scope)) throw insufficientScope();
    next();
  };
}

/**
 * What every protected route declares, in its definition: `router.get(path, guard('x:read'), ...)`.
 * Token first, then the per-client handlers (rate limits), then the scope; `null` for routes
 * that need a valid token and no scope (revoke).
 */
export type Guard = (scope: Scope | null) => RequestHandler;

const DECLARED_SCOPE = Symbol('declared scope');

export function createGuard(tokens: TokenService, perClient: RequestHandler[] = []): Guard {
  const bearer = authenticate(tokens);
  // A router is a single handler running its stack in order, errors included. The declared
  // scope stays readable on it, so a test can list every protected route the app has.
  return (scope) =>
    Object.assign(Router().use(bearer, ...perClient, ...(scope ? [requireScope(scope)] : [])), {
      [DECLARED_SCOPE]: scope,
    });
}

/** The scope a guard handler declares (null: token only), or undefined for any other handler. */
export function declaredScopeOf(handler: unknown): Scope | null | undefined {
  return typeof handler === 'function'
    ? (handler as { [DECLARED_SCOPE]?: Scope | null })[DECLARED_SCOPE]
    : undefined;
}
