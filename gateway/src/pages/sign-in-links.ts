// Single-use sign-in links: a random token in the URL, and in Redis only its SHA-256, with the
// link's lifetime as the key's. Opening the link (GET) only looks; the confirm button's POST
// spends it (GETDEL), so a mail scanner that fetches the link does not use it up. The console's
// links and the portal's are kept apart: one never opens the other's pages.
import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from '#common/redis.js';

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

const AREA_KEYS: Record<LinkArea, string> = { console: 'link', portal: 'portal-link' };

const keyOf = (prefix: string, area: LinkArea, token: string) =>
  `${prefix}:pages:${AREA_KEYS[area]}:${createHash('sha256').update(token).digest('base64url')}`;

/** Tokens are 32 random bytes in base64url; anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function createPageLink<T>(
  redis: RedisClient,
  prefix: string,
  area: LinkArea,
  link: T,
  ttlMs: number,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await redis.set(keyOf(prefix, area, token), JSON.stringify(link), 'PX', ttlMs);
  return token;
}

function parse<T>(stored: string | null): T | null {
  return stored === null ? null : (JSON.parse(stored) as T);
}

/** The link if it is still valid, without spending it. */
export async function peekPageLink<T>(
  redis: RedisClient,
  prefix: string,
  area: LinkArea,
  token: string,
) {
  if (!TOKEN.test(token)) return null;
  return parse<T>(await redis.get(keyOf(prefix, area, token)));
}

/** The link, spent: a second call, here or on any gateway, finds nothing. */
export async function spendPageLink<T>(
  redis: RedisClient,
  prefix: string,
  area: LinkArea,
  token: string,
) {
  if (!TOKEN.test(token)) return null;
  return parse<T>(await redis.getdel(keyOf(prefix, area, token)));
}

export const createSignInLink = (
  redis: RedisClient,
  prefix: string,
  link: SignInLink,
  ttlMs: number,
) => createPageLink(redis, prefix, 'console', link, ttlMs);

export const peekSignInLink = (redis: RedisClient, prefix: string, token: string) =>
  peekPageLink<SignInLink>(redis, prefix, 'console', token);

export const spendSignInLink = (redis: RedisClient, prefix: string, token: string) =>
  spendPageLink<SignInLink>(redis, prefix, 'console', token);
