// Client secrets, and the digest tokens are kept as (decision 0003). Both carry 256 random bits
// made by the API, so a fast hash is as strong as a slow one: tokens are kept as their SHA-256
// (token-checks.ts makes them), secrets as an HMAC-SHA-256 under a key derived from SECRETS_KEY, so a copy of the database alone cannot test
// a guess. Secrets stored by earlier versions as scrypt hashes are checked with scrypt once more
// and stored again in the keyed form.
import {
  createHmac,
  hash,
  randomBytes,
  scrypt,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';
import pLimit from 'p-limit';
import { derivedKeys, keyIdOf } from '#common/secrets-key.js';
import { SANDBOX_KEY_PREFIX, type Club } from '#api/sandbox.js';

export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A live client's key, or a sandbox client's (api/sandbox.ts): the prefix says which club. */
export function generateClientKey(club: Club = 'live'): string {
  return `${club === 'sandbox' ? SANDBOX_KEY_PREFIX : 'ck_'}${randomBytes(16).toString('hex')}`;
}

export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

/** The HKDF label of the secrets' key: SECRETS_KEY serves other uses under other labels. */
const SECRET_KEY_LABEL = 'dashboard-partner-api client secret v1';
const HMAC_SCHEME = 'hmac-sha256';
/** Compared against when the client key is unknown: a made-up key costs what a real one does. */
const NO_SECRET = Buffer.alloc(32);

/** What checking a secret against its stored form found. */
export interface SecretCheck {
  valid: boolean;
  /** The form to store instead (an older form, or a key no longer first); null: keep it. */
  restore: string | null;
  /** The stored form names a key that none of SECRETS_KEY's keys is (dropped too soon). */
  keyMissing: boolean;
}

/**
 * Secrets as stored: `hmac-sha256$<key id>$<base64url HMAC>` under SECRETS_KEY's first key,
 * checked under the key the id names, so a key can be rotated while partners keep their secrets:
 * a secret checked under an older key is stored again under the first (`restore`).
 */
export function createClientSecrets(secretsKeys: readonly string[]) {
  const keys = derivedKeys(secretsKeys, SECRET_KEY_LABEL).map((key) => ({ key, id: keyIdOf(key) }));
  const first = keys[0];
  if (!first) throw new Error('client secrets need SECRETS_KEY');
  const byId = new Map(keys.map((entry) => [entry.id, entry.key]));
  const macOf = (key: Buffer, secret: string) => createHmac('sha256', key).update(secret).digest();
  const hashOf = (secret: string) =>
    [HMAC_SCHEME, first.id, macOf(first.key, secret).toString('base64url')].join('$');

  function checkKeyed(secret: string, stored: string | null): SecretCheck {
    const [scheme, id = '', mac = ''] = stored?.split('$') ?? [];
    const key = scheme === HMAC_SCHEME ? byId.get(id) : undefined;
    const expected = key ? Buffer.from(mac, 'base64url') : NO_SECRET;
    const actual = macOf(key ?? first!.key, secret);
    const valid =
      key !== undefined && expected.length === actual.length && timingSafeEqual(actual, expected);
    return {
      valid,
      restore: valid && id !== first!.id ? hashOf(secret) : null,
      keyMissing: scheme === HMAC_SCHEME && !key,
    };
  }

  return {
    /** The form a new secret is stored in. */
    hash: hashOf,
    /** Whether checking a secret against `stored` costs an HMAC only (not an earlier scrypt). */
    isFast: (stored: string | null) => !stored?.startsWith('scrypt$'),
    /** `stored` null: the client key is unknown, and the answer costs what a known one's does. */
    async verify(secret: string, stored: string | null): Promise<SecretCheck> {
      if (!stored?.startsWith('scrypt$')) return checkKeyed(secret, stored);
      const valid = await oneScryptAtATime(() => verifyScrypt(secret, stored));
      return { valid, restore: valid ? hashOf(secret) : null, keyMissing: false };
    },
  };
}

export type ClientSecrets = ReturnType<typeof createClientSecrets>;

// The form of earlier versions: scrypt$N$r$p$salt$hash. Each check holds one of libuv's four
// threads for tens of milliseconds, so one at a time per process: every other answer keeps
// the thread pool while the old forms are replaced, one successful token request each.
const oneScryptAtATime = pLimit(1);

function scryptAsync(secret: string, salt: Buffer, keylen: number, options: ScryptOptions) {
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(secret, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

async function verifyScrypt(secret: string, stored: string): Promise<boolean> {
  const [, n, r, p, salt, hashed] = stored.split('$');
  if (!salt || !hashed) return false;
  const expected = Buffer.from(hashed, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}
