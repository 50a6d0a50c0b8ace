// Change-feed cursors as an insider would make them: signed with the SECRETS_KEY the tests set,
// by this file's own code (HKDF-SHA256 for the cursor key, HMAC-SHA256 truncated to 16 bytes),
// so the tests check the API's format rather than reuse it. Also edits a cursor's payload while
// keeping its signature, as a partner tampering with one would.
import { createHmac, hkdfSync } from 'node:crypto';
import { TEST_SECRETS_KEY } from './environment.js';

/** What a cursor carries (api/changes/cursor.ts). */
export interface CursorPayload {
  x: string;
  k: number;
  t: string;
  i: number;
  f?: string;
  at: number;
  [field: string]: unknown;
}

const CURSOR_KEY_INFO = 'dashboard-partner-api change-feed cursor v1';

function macOf(payloadText: string, secretsKey: string): string {
  const key = Buffer.from(
    hkdfSync('sha256', Buffer.from(secretsKey, 'base64'), Buffer.alloc(0), CURSOR_KEY_INFO, 32),
  );
  return createHmac('sha256', key)
    .update(payloadText)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

/** A cursor carrying `payload`, signed as the API signs (any JSON value: tests forge bad ones). */
export function signedCursor(payload: unknown, secretsKey = TEST_SECRETS_KEY): string {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${text}.${macOf(text, secretsKey)}`;
}

/** Whether `cursor` is signed with `secretsKey` as the API signs. */
export function isSignedCursor(cursor: string, secretsKey = TEST_SECRETS_KEY): boolean {
  const [text, mac, ...rest] = cursor.split('.');
  return rest.length === 0 && text !== undefined && mac === macOf(text, secretsKey);
}

/** The payload of a cursor, unchecked. */
export function payloadOf(cursor: string): CursorPayload {
  const text = cursor.split('.')[0]!;
  return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as CursorPayload;
}

/** `cursor` with its payload re-encoded after `edit`, its signature (if any) kept as it was. */
export function editedCursor(cursor: string, edit: (payload: CursorPayload) => unknown): string {
  const [, ...signature] = cursor.split('.');
  const text = Buffer.from(JSON.stringify(edit(payloadOf(cursor)))).toString('base64url');
  return [text, ...signature].join('.');
}
