// Turkish-aware text folding for search: case- and diacritic-insensitive under Turkish rules,
// so that "ismail" finds "İsmail", "IŞIK" finds "ışık" and "sukru" finds "Şükrü".

/**
 * Lower-cases with the Turkish locale (I -> ı, İ -> i), strips combining marks (ş ç ğ ü ö â î û
 * decompose) and maps the dotless ı, which has no decomposition, to i.
 */
export function foldTurkish(text: string): string {
  return text
    .toLocaleLowerCase('tr-TR')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ı/g, 'i')
    .replace(/\s+/g, ' ')
    .trim();
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
