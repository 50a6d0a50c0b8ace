// Admission of a protected request, in one step: bearer token (cached per process, see
// access-tokens.ts), then the three rate-limit windows and the client's epoch in one Redis round
// trip, then the declared scope. See docs/decisions/0003, 0004 and 0005.
import type { Request, RequestHandler, Response } from 'express';
import type { RedisClient } from '#common/redis.js';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import type { Logger } from '#common/logger.js';
import {
  readAccessToken,
  TokenCache,
  type AuthContext,
  type CachedToken,
} from '../trust/access-tokens.js';
import type { Scope } from '#api/scopes.js';
import { sha256 } from '../trust/client-secrets.js';
import { earlierTokens } from '../trust/earlier-tokens.js';
import { createTokenChecks } from '../trust/token-checks.js';
import { identifyClient } from './access-log.js';
import { insufficientScope, invalidToken } from './errors.js';
import type { GatewayMetrics } from './metrics.js';
import { createClientLimiter } from './rate-limit/client-limiter.js';
import { createRateLimitPolicy } from './rate-limit/rate-limit.js';

export type { AuthContext };

export interface GuardDeps {
  config: Config;
  db: ReadModelClient;
  redis: RedisClient;
  logger: Logger;
  metrics: GatewayMetrics;
}

/** Never an epoch Redis holds: a token read without one is checked (and reloaded) first. */
const UNKNOWN_EPOCH = '\u0000unknown';
/** A token read for this request alone (cache off, or read again after a change): no check. */
const ANY_EPOCH = '*';

/** The bearer token as presented, or null when there is none. */
function bearerTokenOf(req: Request): string | null {
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(req.get('authorization') ?? '');
  return match?.[1] ?? null;
}

/** Bearer check and rate limits: sets res.locals.auth, or fails with 401, 429 or 503. */
export type Admission = (req: Request, res: Response) => Promise<void>;

/**
 * Access tokens by hash: the process's cache (decision 0005's epochs) over PostgreSQL, with one
 * read per token and epoch at a time.
 */
function tokenReads(deps: GuardDeps) {
  const cacheOn = deps.config.tokens.cacheSeconds > 0;
  const cache = new TokenCache(deps.config.tokens.cacheSeconds * 1000);
  // Changes made while this instance could not see Redis would not show in the epoch it reads
  // afterwards: start from PostgreSQL again after every lost connection.
  deps.redis.on('close', () => cache.clear());

  async function fromDatabase(hash: string, epoch = UNKNOWN_EPOCH): Promise<CachedToken> {
    deps.metrics.tokenReads.inc();
    const token = await readAccessToken(deps.db, hash);
    if (!token) {
      cache.delete(hash);
      throw invalidToken();
    }
    if (!cacheOn) return { ...token, epoch: ANY_EPOCH, cachedUntil: 0 };
    return epoch === UNKNOWN_EPOCH
      ? { ...token, epoch, cachedUntil: 0 }
      : cache.set(hash, token, epoch);
  }

  // One read per token and epoch at a time: when a cache entry expires under load, every request
  // in flight for that token would otherwise read it again at once. Sharing is safe within one
  // epoch: a read started after that epoch was seen reflects every change announced before it,
  // and a later change moves the epoch, so a request that saw a later one never joins.
  const loading = new Map<string, Promise<CachedToken>>();
  function reload(hash: string, epoch: string): Promise<CachedToken> {
    const key = `${epoch}\u0000${hash}`;
    let pending = loading.get(key);
    if (!pending) {
      pending = fromDatabase(hash, epoch).finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  }

  /**
   * The cached token, or one to check: an expired entry still names its client and limits for
   * the Redis call, under an epoch that never matches, so that call counts nothing and reports
   * the epoch to read the token again under; its rights are never used.
   */
  function cached(hash: string): CachedToken | undefined {
    const entry = cache.get(hash);
    return entry && entry.cachedUntil <= Date.now() ? { ...entry, epoch: UNKNOWN_EPOCH } : entry;
  }

  return { cache, fromDatabase, reload, cached };
}

export function admission(deps: GuardDeps): Admission {
  const { cache, fromDatabase, reload, cached } = tokenReads(deps);
  const limiter = createClientLimiter(deps.redis, deps.config.redis.prefix);
  const policy = createRateLimitPolicy(deps);
  const checks = createTokenChecks(deps.config.secrets.keys);
  const earlier = earlierTokens(deps.db);

  /** Whether the token could be ours: a made-up one is refused without a token lookup. */
  async function mayBeOurs(token: string): Promise<boolean> {
    const form = checks.accessForm(token);
    return form?.form === 'keyed' || (form?.form === 'earlier' && (await earlier.accessMayLive()));
  }

  async function admit(hash: string, res: Response): Promise<AuthContext> {
    let token = cached(hash) ?? (await fromDatabase(hash));
    let fresh = token.cachedUntil === 0;
    let outcome = await count(hash, token, token.epoch);
    if (outcome.kind === 'stale') {
      // The client changed since the token was cached (or it never was, or its entry expired):
      // read it again, under the epoch Redis holds now. That read begins after this request
      // did, so it holds every change announced before the request; it is counted without a
      // second epoch check, which a client whose refreshes move its epoch many times a second
      // might never pass. The next request checks the epoch again.
      token = await reload(hash, outcome.epoch);
      fresh = true;
      outcome = await count(hash, token, ANY_EPOCH);
    }
    if (outcome.kind === 'failed') {
      // No epoch to check a cached token against: PostgreSQL decides, as without a cache.
      cache.delete(hash);
      const current = fresh ? token : await fromDatabase(hash);
      identifyClient(res, current.auth);
      policy.onStoreFailure(outcome.error);
      // Nor the client's last write: its reads go to the primary.
      res.locals.readAfter = null;
      return current.auth;
    }
    if (outcome.kind === 'stale') throw new Error('a count without an epoch check was stale');
    // Before the limits: a refused request is logged and counted under its client too.
    identifyClient(res, token.auth);
    policy.apply(res, outcome);
    res.locals.readAfter = outcome.readAfter;
    return token.auth;
  }

  /** Counts the request against the client's limits if `epoch` is still the client's. */
  async function count(hash: string, token: CachedToken, epoch: string) {
    if (token.expiresAt <= Date.now()) {
      cache.delete(hash);
      throw invalidToken();
    }
    return limiter
      .consume(token.auth.clientId, policy.limitsOf(token.auth), epoch)
      .catch((error: unknown) => ({ kind: 'failed' as const, error }));
  }

  return async (req, res) => {
    const token = bearerTokenOf(req);
    if (!token) throw invalidToken();
    const hash = sha256(token);
    // A token in the cache passed its check when it was read: only the others are checked.
    if (!cache.get(hash) && !(await mayBeOurs(token))) throw invalidToken();
    res.locals.auth = await admit(hash, res);
  };
}

/**
 * The WAL position the request's reads must have seen (the client's last member write, '' none),
 * or null when Redis could not say: then only the primary will do.
 */
export function readAfterOf(res: Response): string | null {
  const value = res.locals.readAfter as string | null | undefined;
  return value === undefined ? '' : value;
}

export function authOf(res: Response): AuthContext {
  const auth = res.locals.auth as AuthContext | undefined;
  if (!auth) throw new Error('authOf() used on a route without admission()');
  return auth;
}

/**
 * What every protected route declares, in its definition: `router.get(path, guard('x:read'), ...)`.
 * Token and rate limits first, then the scope; `null` for routes that need a valid token and no
 * scope (revoke).
 */
export type Guard = (scope: Scope | null) => RequestHandler;

const DECLARED_SCOPE = Symbol('declared scope');

export function createGuard(admit: Admission): Guard {
  // One plain handler rather than a router of three: it runs on every protected request. The
  // declared scope stays readable on it, so a test can list every protected route the app has.
  return (scope) => {
    const handler: RequestHandler = (req, res, next) => {
      admit(req, res).then(() => {
        next(scope && !authOf(res).scopes.includes(scope) ? insufficientScope() : undefined);
      }, next);
    };
    return Object.assign(handler, { [DECLARED_SCOPE]: scope });
  };
}

/** The scope a guard handler declares (null: token only), or undefined for any other handler. */
export function declaredScopeOf(handler: unknown): Scope | null | undefined {
  return typeof handler === 'function'
    ? (handler as { [DECLARED_SCOPE]?: Scope | null })[DECLARED_SCOPE]
    : undefined;
}
