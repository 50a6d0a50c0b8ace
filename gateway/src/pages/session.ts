// Page sessions, kept in Redis so every gateway knows them: an HttpOnly, SameSite=Strict cookie
// (`__Host-` prefixed and Secure in production), ended after CONSOLE_SESSION_IDLE_MINUTES
// without a request (the cookie and the Redis key are renewed by each one) and
// CONSOLE_SESSION_MAX_HOURS after sign-in whatever happens (docs/decisions/0019-console.md).
import { createHmac } from 'node:crypto';
import { RedisStore } from 'connect-redis';
import type { Request, RequestHandler } from 'express';
import session from 'express-session';
import type { Config } from '#common/config.js';
import type { RedisClient } from '#common/redis.js';

declare module 'express-session' {
  interface SessionData {
    /** Who signed in, from the sign-in link (or the OpenID provider). */
    operator: { name: string };
    /**
     * The portal's partner: its client, and the client's token generation and secret version at
     * sign-in; the session ends as a token of that moment would (the generation moves, the secret
     * it began under is replaced and its overlap ends) or when the client is disabled.
     */
    partner: { clientId: number; clientKey: string; generation: number; secretVersion: number };
    /** When, in ms since the epoch: the session ends CONSOLE_SESSION_MAX_HOURS after. */
    signedInAt: number;
  }
}

/**
 * The cookie's signing keys, derived from SECRETS_KEY (each key of the list, so rotating it keeps
 * sessions): a copy of Redis alone cannot make a cookie.
 */
const cookieSecrets = (keys: readonly string[]) =>
  keys.map((key) =>
    createHmac('sha256', Buffer.from(key, 'base64')).update('page session cookie').digest('hex'),
  );

export function pageSessions(deps: {
  redis: RedisClient;
  config: Config;
  /** Distinguishes the console's sessions from the portal's, in cookies and in Redis. */
  name: string;
}): RequestHandler {
  const { config, name } = deps;
  const { idleMs, secureCookie } = config.console;
  return session({
    name: secureCookie ? `__Host-${name}` : name,
    secret: cookieSecrets(config.secrets.keys),
    store: new RedisStore({ client: deps.redis, prefix: `${config.redis.prefix}:pages:${name}:` }),
    resave: false,
    saveUninitialized: false,
    // Each request renews the idle limit, in the cookie and in Redis.
    rolling: true,
    cookie: { httpOnly: true, sameSite: 'strict', secure: secureCookie, path: '/', maxAge: idleMs },
  });
}

/** Whether a signed-in session has passed its longest life. */
export function sessionOutlived(signedInAt: number, config: Config): boolean {
  return Date.now() - signedInAt > config.console.maxMs;
}

/** A new session id for the signed-in: one planted before sign-in is worth nothing after it. */
export const regenerateSession = (req: Request) =>
  new Promise<void>((resolve, reject) =>
    req.session.regenerate((error) => (error ? reject(error as Error) : resolve())),
  );

export const destroySession = (req: Request) =>
  new Promise<void>((resolve) => req.session.destroy(() => resolve()));
