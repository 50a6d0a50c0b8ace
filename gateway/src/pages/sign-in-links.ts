// Single-use sign-in links: a random token in the URL, and in Redis only its SHA-256, with the
// link's lifetime as the key's. Opening the link (GET) only looks; the confirm button's POST
// spends it (GETDEL), so a mail scanner that fetches the link does not use it up.
import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from '../../../common/redis.js';

export interface SignInLink {
  /** Who signs in: the operator's name, shown in the console and the operator audit. */
  name: string;
}

const keyOf = (prefix: string, token: string) =>
  `${prefix}:pages:link:${createHash('sha256').update(token).digest('base64url')}`;

/** Tokens are 32 random bytes in base64url; anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function createSignInLink(
  redis: RedisClient,
  prefix: string,
  link: SignInLink,
  ttlMs: number,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await redis.set(keyOf(prefix, token), JSON.stringify(link), 'PX', ttlMs);
  return token;
}

function parse(stored: string | null): SignInLink | null {
  return stored === null ? null : (JSON.parse(stored) as SignInLink);
}

/** The link if it is still valid, without spending it. */
export async function peekSignInLink(redis: RedisClient, prefix: string, token: string) {
  if (!TOKEN.test(token)) return null;
  return parse(await redis.get(keyOf(prefix, token)));
}

/** The link, spent: a second call, here or on any gateway, finds nothing. */
export async function spendSignInLink(redis: RedisClient, prefix: string, token: string) {
  if (!TOKEN.test(token)) return null;
  return parse(await redis.getdel(keyOf(prefix, token)));
}
