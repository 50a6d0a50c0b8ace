// Keys derived from SECRETS_KEY (common/config.ts), one per use: HKDF-SHA256 with each use's own
// label, so a key that signs change-feed cursors never also encrypts webhook signing secrets, and
// a key learnt from one use opens nothing of another. Each of SECRETS_KEY's keys gives one, in
// the same order: the first signs or encrypts, every one verifies or decrypts.
import { hkdfSync } from 'node:crypto';

/** The key of one use (`label`) for each key of SECRETS_KEY (base64), in order. */
export function derivedKeys(secretsKeys: readonly string[], label: string): Buffer[] {
  return secretsKeys.map((key) =>
    Buffer.from(hkdfSync('sha256', Buffer.from(key, 'base64'), Buffer.alloc(0), label, 32)),
  );
}
