// The language of a page (docs/decisions/0025-page-languages.md): the visitor's own choice (the
// `lang` cookie the frame's switch sets), else the area's for its signed-in visitors (the
// console's staff read Turkish), else what the browser's Accept-Language prefers of the two. And
// the Intl formats of dates and numbers in that language, so no view writes one itself.

export const LOCALES = ['tr', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/** The cookie the language switch sets (pages/language.tsx). */
export const LANG_COOKIE = 'lang';
/** How long the choice is remembered. */
export const LANG_COOKIE_MS = 365 * 86_400_000;

export const isLocale = (value: unknown): value is Locale =>
  typeof value === 'string' && (LOCALES as readonly string[]).includes(value);

/** The `lang` cookie's value in a Cookie header, when it names a language of ours. */
export function cookieLocale(cookieHeader: string | undefined): Locale | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === LANG_COOKIE && isLocale(value)) return value;
  }
  return undefined;
}

/**
 * Turkish when the Accept-Language header prefers it to English (a higher q, or the same q
 * named first), English otherwise: without the header too.
 */
export function acceptedLocale(header: string | undefined): Locale {
  const best = new Map<Locale, { q: number; at: number }>();
  (header ?? '').split(',').forEach((entry, at) => {
    const [range = '', ...params] = entry.trim().toLowerCase().split(';');
    const language = range.split('-')[0];
    if (!isLocale(language)) return;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) return;
    const known = best.get(language);
    if (!known || q > known.q) best.set(language, { q, at });
  });
  const tr = best.get('tr');
  const en = best.get('en');
  if (!tr) return 'en';
  return !en || tr.q > en.q || (tr.q === en.q && tr.at < en.at) ? 'tr' : 'en';
}

/** Where the local times of the pages are: the club's. */
export const LOCAL_ZONE = 'Europe/Istanbul';

/** Dates and numbers as the page's language writes them. */
export interface Format {
  /** A count or an amount. */
  number(n: number | bigint): string;
  /** A moment in the club's local time, its zone named: "28 Kas 2026 12:30 GMT+3". */
  moment(at: Date): string;
  /** A moment in UTC, for columns whose head says UTC; `minute`: without the seconds. */
  utc(at: Date, precision?: 'second' | 'minute'): string;
  /** How long ago, in the largest unit that reads at a glance (seconds, minutes, hours). */
  duration(seconds: number): string;
}

const INTL_LOCALE: Record<Locale, string> = { tr: 'tr-TR', en: 'en-GB' };

const DAY_AND_TIME = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
} as const satisfies Intl.DateTimeFormatOptions;

function makeFormat(locale: Locale): Format {
  const tag = INTL_LOCALE[locale];
  const numbers = new Intl.NumberFormat(tag);
  const local = new Intl.DateTimeFormat(tag, {
    ...DAY_AND_TIME,
    timeZone: LOCAL_ZONE,
    timeZoneName: 'short',
  });
  const utcSeconds = new Intl.DateTimeFormat(tag, {
    ...DAY_AND_TIME,
    second: '2-digit',
    timeZone: 'UTC',
  });
  const utcMinutes = new Intl.DateTimeFormat(tag, { ...DAY_AND_TIME, timeZone: 'UTC' });
  const unit = (name: 'second' | 'minute' | 'hour') =>
    new Intl.NumberFormat(tag, { style: 'unit', unit: name, unitDisplay: 'short' });
  const [seconds, minutes, hours] = [unit('second'), unit('minute'), unit('hour')];
  return {
    number: (n) => numbers.format(n),
    moment: (at) => local.format(at),
    utc: (at, precision = 'second') =>
      (precision === 'second' ? utcSeconds : utcMinutes).format(at),
    duration: (s) => {
      if (s < 120) return seconds.format(s);
      if (s < 7200) return minutes.format(Math.round(s / 60));
      return hours.format(Math.round(s / 3600));
    },
  };
}

const FORMATS: Record<Locale, Format> = { tr: makeFormat('tr'), en: makeFormat('en') };

export const formatOf = (locale: Locale): Format => FORMATS[locale];
