// Single-use sign-in links: a random token in the URL, and in Redis only its keyed hash (HMAC
// under a key derived from SECRETS_KEY), with the link's lifetime as the key's. Opening the link
// (GET) only looks; the confirm button's POST spends it (GETDEL), so a mail scanner that fetches
// the link does not use it up. The console's links and the portal's are kept apart: one never
// opens the other's pages.
import { randomBytes } from 'node:crypto';
import type { Config } from '#common/config.js';
import type { RedisClient } from '#common/redis.js';
import { keyedDigests } from '#common/secrets-key.js';

/** Which pages a link opens. */
export type LinkArea = 'console' | 'portal';

export interface SignInLink {
  /** Who signs in: the operator's name, shown in the console and the operator audit. */
  name: string;
}

/**
 * A partner's way in to the portal, for one client: valid while the client's tokens of the moment
 * it was made would be (its token generation and secret version then) and under the client's
 * portal link generation then (features/portal/portal-links.ts).
 */
export interface PortalLink {
  clientId: number;
  clientKey: string;
  generation: number;
  secretVersion: number;
  linkGeneration: number;
}

/**
 * Where sign-in links (and the console's sign-in flows) are kept: the deployment's Redis prefix,
 * and the keys their hashes are made with.
 */
export interface LinkKeys {
  prefix: string;
  /** SECRETS_KEY's keys: the first hashes a new link, every one finds one (rotation). */
  secretsKeys: readonly string[];
}

export const linkKeysOf = (config: Pick<Config, 'redis' | 'secrets'>): LinkKeys => ({
  prefix: config.redis.prefix,
  secretsKeys: config.secrets.keys,
});

const AREA_KEYS: Record<LinkArea, string> = { console: 'link', portal: 'portal-link' };

/** The Redis keys a token may be under, one per key of SECRETS_KEY, the current one first. */
const keysOf = (where: LinkKeys, area: LinkArea, token: string) =>
  keyedDigests(where.secretsKeys, 'page sign-in link', token).map(
    (digest) => `${where.prefix}:pages:${AREA_KEYS[area]}:${digest}`,
  );

/** Tokens are 32 random bytes in base64url; anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function createPageLink<T>(
  redis: RedisClient,
  where: LinkKeys,
  area: LinkArea,
  link: T,
  ttlMs: number,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await redis.set(keysOf(where, area, token)[0]!, JSON.stringify(link), 'PX', ttlMs);
  return token;
}

/** The first value found under the token's keys, by `read` (GET, or GETDEL to spend it). */
async function findLink<T>(
  where: LinkKeys,
  area: LinkArea,
  token: string,
  read: (key: string) => Promise<string | null>,
): Promise<T | null> {
  if (!TOKEN.test(token)) return null;
  for (const key of keysOf(where, area, token)) {
    const stored = await read(key);
    if (stored !== null) return JSON.parse(stored) as T;
  }
  return null;
}

/** The link if it is still valid, without spending it. */
export const peekPageLink = <T>(
  redis: RedisClient,
  where: LinkKeys,
  area: LinkArea,
  token: string,
) => findLink<T>(where, area, token, (key) => redis.get(key));

/** The link, spent: a second call, here or on any gateway, finds nothing. */
export const spendPageLink = <T>(
  redis: RedisClient,
  where: LinkKeys,
  area: LinkArea,
  token: string,
) => findLink<T>(where, area, token, (key) => redis.getdel(key));

export const createSignInLink = (
  redis: RedisClient,
  where: LinkKeys,
  link: SignInLink,
  ttlMs: number,
) => createPageLink(redis, where, 'console', link, ttlMs);

export const peekSignInLink = (redis: RedisClient, where: LinkKeys, token: string) =>
  peekPageLink<SignInLink>(redis, where, 'console', token);

export const spendSignInLink = (redis: RedisClient, where: LinkKeys, token: string) =>
  spendPageLink<SignInLink>(redis, where, 'console', token);
