// The dashboard's own rules for member data, as pure functions (legacy README, "Members"):
// accepted phone forms, the national id's check digits, numbering and generated codes.
import { randomInt } from 'node:crypto';

/**
 * `+90 5XX XXX XX XX`, `5XXXXXXXXX` or `05XXXXXXXXX` -> the stored `05XXXXXXXXX`; null for
 * anything else. Spaces are allowed only where the dashboard's international form puts them.
 */
export function normalizePhone(input: string): string | null {
  const value = input.trim();
  const international = /^\+90 ?(5\d{2}) ?(\d{3}) ?(\d{2}) ?(\d{2})$/.exec(value);
  if (international) return `0${international.slice(1).join('')}`;
  if (/^5\d{9}$/.test(value)) return `0${value}`;
  if (/^05\d{9}$/.test(value)) return value;
  return null;
}

/** An 11-digit Turkish national id: first digit not 0, digits 10 and 11 its check digits. */
export function isValidTcNo(value: string): boolean {
  if (!/^[1-9]\d{10}$/.test(value)) return false;
  const d = [...value].map(Number);
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!;
  const even = d[1]! + d[3]! + d[5]! + d[7]!;
  const tenth = (((odd * 7 - even) % 10) + 10) % 10;
  const eleventh = d.slice(0, 10).reduce((sum, digit) => sum + digit, 0) % 10;
  return d[9] === tenth && d[10] === eleventh;
}

/** Branch id padded to 3 digits, then the branch's counter padded to 6: (7, 42) -> 007000042. */
export function formatMemberNo(branchId: number, counter: number): string {
  return `${String(branchId).padStart(3, '0')}${String(counter).padStart(6, '0')}`;
}

const QR_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const REFERRAL_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function randomFrom(alphabet: string, length: number): string {
  let result = '';
  for (let i = 0; i < length; i++) result += alphabet[randomInt(alphabet.length)];
  return result;
}

/** `QR` followed by 20 random characters from A-Z0-9. */
export const generateQrCode = () => `QR${randomFrom(QR_ALPHABET, 20)}`;

/** 8 random characters from the dashboard's alphabet (no I, O, 0, 1: easy to read aloud). */
export const generateReferralCode = () => randomFrom(REFERRAL_ALPHABET, 8);

/** Whether a YYYY-MM-DD string names a real calendar day (2026-02-30 does not). */
export function isRealDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}
