// The tokens this API hands out (decision 0003): 256 random bits in base64url, and for a refresh
// token its chain, followed by 6 characters of an HMAC-SHA-256 under a key derived from
// SECRETS_KEY. A token whose check fails under every key of SECRETS_KEY was not made by us and is
// refused without a lookup; nobody without the key can make one that passes. A refresh token
// names its chain, so a rotated one presented after its row was purged still reveals the chain
// to revoke (reuse detection for the whole life of the chain).
import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { derivedKeys } from '#common/secrets-key.js';

/** The HKDF label of the tokens' key: SECRETS_KEY serves other uses under other labels. */
const TOKEN_CHECK_LABEL = 'dashboard-partner-api token check v1';
const RANDOM_LENGTH = 43;
const CHAIN_LENGTH = 22;
const CHECK_LENGTH = 6;
const ALPHABET = /^[A-Za-z0-9_-]+$/;

/**
 * What a presented token can be: one of ours (`keyed`, a refresh token with its chain), one of
 * the form issued before checks were keyed (`earlier`: looked up only while such tokens can
 * still be alive, earlier-tokens.ts), or nothing we issued (null: refused without a lookup).
 */
export type TokenForm = { form: 'keyed'; chainId: string | null } | { form: 'earlier' } | null;

const chainPart = (chainId: string) =>
  Buffer.from(chainId.replaceAll('-', ''), 'hex').toString('base64url');

function chainIdOf(part: string): string {
  const hex = Buffer.from(part, 'base64url').toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The unkeyed check of earlier versions: 6 characters of the random part's SHA-256. */
const earlierCheckOf = (random: string) =>
  hash('sha256', random, 'base64url').slice(0, CHECK_LENGTH);

function isEarlierForm(token: string, refresh: boolean): boolean {
  if (!ALPHABET.test(token)) return false;
  // Refresh tokens issued before tokens carried any check: 43 characters.
  if (refresh && token.length === RANDOM_LENGTH) return true;
  return (
    token.length === RANDOM_LENGTH + CHECK_LENGTH &&
    earlierCheckOf(token.slice(0, RANDOM_LENGTH)) === token.slice(RANDOM_LENGTH)
  );
}

export function createTokenChecks(secretsKeys: readonly string[]) {
  const keys = derivedKeys(secretsKeys, TOKEN_CHECK_LABEL);
  const first = keys[0];
  if (!first) throw new Error('tokens need SECRETS_KEY');
  const checkOf = (key: Buffer, body: string) =>
    createHmac('sha256', key).update(body).digest('base64url').slice(0, CHECK_LENGTH);
  const signed = (body: string) => body + checkOf(first, body);
  const random = () => randomBytes(32).toString('base64url');

  /** Whether the last 6 characters are the check of the rest under one of the keys. */
  function passes(token: string, bodyLength: number): boolean {
    if (token.length !== bodyLength + CHECK_LENGTH || !ALPHABET.test(token)) return false;
    const body = token.slice(0, bodyLength);
    const check = Buffer.from(token.slice(bodyLength));
    return keys.some((key) => timingSafeEqual(Buffer.from(checkOf(key, body)), check));
  }

  return {
    accessToken: () => signed(random()),
    refreshToken: (chainId: string) => signed(random() + chainPart(chainId)),
    /**
     * A token of the earlier form, for either use: what the earlier release accepts, issued while
     * it may still run beside this one (earlier-tokens.ts).
     */
    earlierToken: () => {
      const body = random();
      return body + earlierCheckOf(body);
    },

    accessForm(token: string): TokenForm {
      if (passes(token, RANDOM_LENGTH)) return { form: 'keyed', chainId: null };
      return isEarlierForm(token, false) ? { form: 'earlier' } : null;
    },

    refreshForm(token: string): TokenForm {
      if (passes(token, RANDOM_LENGTH + CHAIN_LENGTH)) {
        return { form: 'keyed', chainId: chainIdOf(token.slice(RANDOM_LENGTH, -CHECK_LENGTH)) };
      }
      return isEarlierForm(token, true) ? { form: 'earlier' } : null;
    },
  };
}

export type TokenChecks = ReturnType<typeof createTokenChecks>;
