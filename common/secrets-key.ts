// Keys derived from SECRETS_KEY (common/config.ts), one per use: HKDF-SHA256 with each use's own
// label, so a key that signs change-feed cursors never also encrypts webhook signing secrets, and
// a key learnt from one use opens nothing of another. Each of SECRETS_KEY's keys gives one, in
// the same order: the first signs or encrypts, every one verifies or decrypts.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
} from 'node:crypto';

/** The key of one use (`label`) for each key of SECRETS_KEY (base64), in order. */
export function derivedKeys(secretsKeys: readonly string[], label: string): Buffer[] {
  return secretsKeys.map((key) =>
    Buffer.from(hkdfSync('sha256', Buffer.from(key, 'base64'), Buffer.alloc(0), label, 32)),
  );
}

/**
 * What a store keeps in place of a bearer value (a sign-in link's token, a sign-in flow's
 * binding): its HMAC-SHA256 under `label`'s key, one per key of SECRETS_KEY, first key first
 * (base64url). Unlike a plain hash, a copy of the store cannot be checked against guesses, nor a
 * stored entry made, without SECRETS_KEY. The first names what is stored; every one finds it.
 */
export function keyedDigests(
  secretsKeys: readonly string[],
  label: string,
  value: string,
): string[] {
  if (secretsKeys.length === 0) throw new Error('SECRETS_KEY is not set: nothing can be stored');
  return derivedKeys(secretsKeys, label).map((key) =>
    createHmac('sha256', key).update(value).digest('base64url'),
  );
}

/**
 * A derived key's public name: the first 6 bytes of its SHA-256 (base64url, 8 characters). Stored
 * values name their key by it rather than by its place in SECRETS_KEY, which rotation changes.
 */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest().subarray(0, 6).toString('base64url');
}

/** A stored value that none of SECRETS_KEY's keys opens, or that is not a sealed value at all. */
export class SealedTextError extends Error {
  override readonly name = 'SealedTextError';
}

/** Text encrypted at rest under one use's keys (createSealer). */
export interface Sealer {
  /** `text` encrypted under the first key: `v1.<key id>.<base64url of IV, ciphertext, tag>`. */
  seal(text: string): string;
  /** The text a sealed value holds; throws SealedTextError when no key opens it. */
  open(sealed: string): string;
  /** Whether `sealed` is a sealed value under the first key, so sealing it again changes nothing. */
  isCurrent(sealed: string): boolean;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^v1\.([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]+)$/;

/**
 * AES-256-GCM under `label`'s derived keys: a random 96-bit IV per value, the 128-bit tag
 * checked before anything is returned. The prefix names the key by its id (keyIdOf) and
 * is authenticated with the text, so a value cannot be passed off under another key or version.
 */
export function createSealer(secretsKeys: readonly string[], label: string): Sealer {
  const keys = derivedKeys(secretsKeys, label).map((key) => ({ key, id: keyIdOf(key) }));
  const byId = new Map(keys.map((entry) => [entry.id, entry.key]));
  const first = keys[0];

  return {
    seal(text) {
      if (!first) throw new SealedTextError('SECRETS_KEY is not set: nothing can be encrypted');
      const header = `${VERSION}.${first.id}`;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', first.key, iv).setAAD(Buffer.from(header));
      const body = Buffer.concat([
        iv,
        cipher.update(text, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${header}.${body.toString('base64url')}`;
    },

    open(sealed) {
      const match = SEALED.exec(sealed);
      if (!match) throw new SealedTextError('not an encrypted value (v1.<key id>.<data>)');
      const [, id = '', data = ''] = match;
      const key = byId.get(id);
      if (!key) {
        throw new SealedTextError(
          `encrypted under key id ${id}, which none of SECRETS_KEY's keys is`,
        );
      }
      const body = Buffer.from(data, 'base64url');
      if (body.length < IV_BYTES + TAG_BYTES)
        throw new SealedTextError('encrypted value cut short');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES), {
          authTagLength: TAG_BYTES,
        })
          .setAAD(Buffer.from(`${VERSION}.${id}`))
          .setAuthTag(body.subarray(body.length - TAG_BYTES));
        const text = Buffer.concat([
          decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return text.toString('utf8');
      } catch {
        throw new SealedTextError(`encrypted value altered, or not made with key id ${id}`);
      }
    },

    isCurrent(sealed) {
      return first !== undefined && SEALED.exec(sealed)?.[1] === first.id;
    },
  };
}
