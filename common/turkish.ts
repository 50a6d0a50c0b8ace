// Turkish-aware text folding for search: case- and diacritic-insensitive under Turkish rules,
// so that "ismail" finds "İsmail", "IŞIK" finds "ışık" and "sukru" finds "Şükrü".

/**
 * Lower-cases with the Turkish locale (I -> ı, İ -> i), strips combining marks (ş ç ğ ü ö â î û
 * decompose) and maps the dotless ı, which has no decomposition, to i.
 */
export function foldTurkish(text: string): string {
  return foldCommonCharacters(text) ?? foldFully(text);
}

function foldFully(text: string): string {
  return text
    .toLocaleLowerCase('tr-TR')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ı/g, 'i')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * What foldFully gives each character of the common alphabet (ASCII and the Turkish letters):
 * its folded character code, SPACE for white space; absent for any other character.
 */
const FOLDED = new Map<number, number>();
const SPACE = 32;
for (let c = 0; c < 128; c++) {
  const folded = foldFully(`x${String.fromCharCode(c)}x`).slice(1, -1);
  FOLDED.set(c, folded.charCodeAt(0)); // white space folds to ' ', SPACE
}
for (const c of 'çÇşŞğĞüÜöÖıİâÂîÎûÛ') FOLDED.set(c.charCodeAt(0), foldFully(c).charCodeAt(0));

/** Folded codes of the text being folded, reused from call to call. */
const folded: number[] = [];

/**
 * foldFully for texts of the common alphabet, character by character: a backfill folds the name
 * of every member and staff row, and the locale-aware lower-casing and the Unicode normalisation
 * were most of the member mapping's cost. Null for a text with any other character (or a long
 * one), which foldFully folds. common/turkish.unit.test.ts checks the two agree.
 */
function foldCommonCharacters(text: string): string | null {
  if (text.length > 512) return null;
  folded.length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = FOLDED.get(text.charCodeAt(i));
    if (code === undefined) return null;
    // White space: one space between words, none at either end.
    if (code === SPACE && (folded.length === 0 || folded[folded.length - 1] === SPACE)) continue;
    folded.push(code);
  }
  if (folded[folded.length - 1] === SPACE) folded.pop();
  return String.fromCharCode(...folded);
}

export function digitsOf(text: string): string {
  return text.replace(/\D/g, '');
}

/**
 * The digits a phone search should look for: "+90 532 ..." and "0532 ..." both become the
 * national form the dashboard stores, so any formatting of the same number matches.
 */
export function phoneSearchDigits(query: string): string | null {
  if (!/^[\d\s()+.-]+$/.test(query)) return null;
  const digits = digitsOf(query);
  if (digits.length === 0) return null;
  return digits.length >= 12 && digits.startsWith('90') ? `0${digits.slice(2)}` : digits;
}
