// The language a page is shown in, chosen once per request for every area
// (docs/decisions/0025-page-languages.md): the visitor's choice in the `lang` cookie, else the
// area's own for its signed-in visitors (the console's staff read Turkish), else what the
// browser's Accept-Language prefers. The page machinery (page.tsx, sign-in.tsx, page-layers.tsx)
// asks here and hands the catalogue and the formats to the views: no view chooses. The switch in
// every frame links to a route that remembers a choice and leads back to the page.
import { escapeHtml } from '@kitajs/html';
import type { Request, Response, Router } from 'express';
import type { Config } from '#common/config.js';
import {
  acceptedLocale,
  cookieLocale,
  formatOf,
  isLocale,
  LANG_COOKIE,
  LANG_COOKIE_MS,
  LOCALES,
  type Format,
  type Locale,
} from './locale.js';
import { catalogueOf, type Messages } from './messages/index.js';

/** What a page is written with: its language, that language's words and formats. */
export interface PageLanguage {
  locale: Locale;
  t: Messages;
  format: Format;
  /** Where the switch leads back to: the page's own address when it was a GET. */
  here: string;
}

/** A page's words in the request's language: the catalogue's, dates and numbers, the locale. */
export type Words = Pick<PageLanguage, 't' | 'locale' | 'format'>;

/** Each language under its own name, as a switch offers it. */
const NAMES: Record<Locale, string> = { tr: 'Türkçe', en: 'English' };

/** What decides an area's language beside the visitor: its own, for its signed-in visitors. */
export interface Languages {
  prefix: string;
  /** The language of the area's signed-in pages when the visitor chose none. */
  locale?: Locale;
}

export function languageOf(req: Request, res: Response, area: Languages): PageLanguage {
  const signedIn = res.locals.who !== undefined;
  const locale =
    cookieLocale(req.get('cookie')) ??
    (signedIn ? area.locale : undefined) ??
    acceptedLocale(req.get('accept-language'));
  res.set('Content-Language', locale);
  res.vary('Accept-Language');
  return { ...wordsIn(locale), here: req.method === 'GET' ? req.originalUrl : area.prefix };
}

/** The words of `locale`. */
export const wordsIn = (locale: Locale): Words => ({
  locale,
  t: catalogueOf(locale),
  format: formatOf(locale),
});

const SAME = 'http://same.invalid';

/** `back` when it is a path of the area on this site; the area's start otherwise. */
export function backWithin(back: unknown, prefix: string): string {
  if (typeof back !== 'string' || back.includes('\\')) return prefix;
  let url: URL;
  try {
    url = new URL(back, SAME);
  } catch {
    return prefix;
  }
  if (url.origin !== SAME) return prefix;
  const path = `${url.pathname}${url.search}`;
  return url.pathname === prefix || url.pathname.startsWith(`${prefix}/`) ? path : prefix;
}

/** The switch's address: choose `locale`, then come back to `here`. */
const switchTo = (prefix: string, locale: Locale, here: string) =>
  `${prefix}/language/${locale}?${new URLSearchParams({ back: here }).toString()}`;

/**
 * GET `{prefix}/language/{tr|en}?back=PATH` remembers the choice for a year and leads back to
 * PATH, a path of the area only (never another site). A link, not a form: it works signed out,
 * where a form's CSRF token would start a session, and changes nothing but the words.
 */
export function languageRoutes(router: Router, prefix: string, config: Config): void {
  router.get(`${prefix}/language/:locale`, (req, res) => {
    const { locale } = req.params;
    if (isLocale(locale))
      res.cookie(LANG_COOKIE, locale, {
        maxAge: LANG_COOKIE_MS,
        sameSite: 'lax',
        secure: config.console.secureCookie,
        httpOnly: true,
        path: '/',
      });
    res.redirect(303, backWithin(req.query.back, prefix));
  });
}

/** The frame's language switch: each language by its own name, the current one marked. */
export function LanguageSwitch(props: { language: PageLanguage; prefix: string }) {
  const { language, prefix } = props;
  return (
    <nav class="languages" aria-label={language.t.frame.language}>
      <ul>
        {LOCALES.map((locale) => (
          <li>
            {/* A whole page load: htmx would swap the body and leave <html lang> as it was. */}
            <a
              href={switchTo(prefix, locale, language.here)}
              hreflang={locale}
              lang={locale}
              hx-boost="false"
              aria-current={locale === language.locale ? 'true' : undefined}
              safe
            >
              {NAMES[locale]}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A range of two moments in UTC, in the page's words (`common.range`). */
export function Range(props: { from: Date; to: Date; t: Messages; format: Format }) {
  const { from, to, format } = props;
  const [before = '', between = '', after = ''] = props.t.common.range;
  return (
    <>
      {escapeHtml(before)}
      <At at={from} text={format.utc(from)} />
      {escapeHtml(between)}
      <At at={to} text={format.utc(to)} />
      {escapeHtml(after)}
    </>
  );
}

/** A moment as `text` says it, with the instant itself for machines (and tests) to read. */
export function At(props: { at: Date; text: string }) {
  return (
    <time datetime={props.at.toISOString()} safe>
      {props.text}
    </time>
  );
}
