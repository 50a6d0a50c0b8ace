// Client secrets and tokens. Secrets are kept only as a slow scrypt hash; tokens are 256-bit
// random strings kept only as their SHA-256 (fast is fine: they carry full entropy), each with a
// short check of its own, so a made-up token is refused without a lookup (decision 0003).
import { hash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 } as const;

function scryptAsync(secret: string, salt: Buffer, keylen: number, options: ScryptOptions) {
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(secret, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function generateClientKey(): string {
  return `ck_${randomBytes(16).toString('hex')}`;
}

/** 32 random bytes in base64url, then 6 characters (36 bits) of their SHA-256. */
const TOKEN_RANDOM_LENGTH = 43;
const TOKEN_CHECK_LENGTH = 6;
const TOKEN_ALPHABET = /^[A-Za-z0-9_-]+$/;
const checkOf = (random: string) =>
  hash('sha256', random, 'base64url').slice(0, TOKEN_CHECK_LENGTH);

export function generateToken(): string {
  const random = randomBytes(32).toString('base64url');
  return random + checkOf(random);
}

/** Whether a token could be one this API issued: its length, alphabet and check. */
export function isWellFormedToken(token: string): boolean {
  return (
    token.length === TOKEN_RANDOM_LENGTH + TOKEN_CHECK_LENGTH &&
    TOKEN_ALPHABET.test(token) &&
    checkOf(token.slice(0, TOKEN_RANDOM_LENGTH)) === token.slice(TOKEN_RANDOM_LENGTH)
  );
}

/**
 * A refresh token may also be of the form issued before tokens carried a check (43 characters),
 * so partners keep their chains across the upgrade; the failed-attempt throttle bounds the
 * lookups such tokens can cost. Access tokens of that form lived two hours at most.
 */
export function isWellFormedRefreshToken(token: string): boolean {
  return (
    isWellFormedToken(token) || (token.length === TOKEN_RANDOM_LENGTH && TOKEN_ALPHABET.test(token))
  );
}

export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt, SCRYPT.keylen, SCRYPT);
  return [
    'scrypt',
    SCRYPT.N,
    SCRYPT.r,
    SCRYPT.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

// Verifying against this when the client key is unknown keeps the response time the same.
const UNKNOWN_CLIENT_HASH =
  'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export async function verifySecret(secret: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? UNKNOWN_CLIENT_HASH).split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected) && stored !== null;
}
