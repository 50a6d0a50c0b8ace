// A page's own words, written in its file in every language the pages speak
// (docs/decisions/0025-page-languages.md): the Turkish typed against the English, so a missing
// word, or one taking other values, fails `npm run check`. Words several pages or the frame use
// are the catalogue's (pages/messages/). A page reads its words in the request's language, which
// language.tsx chose: `words(ctx)` in its load, view, actions, title and navigation entry.
import type { Locale } from './locale.js';

/**
 * Every page's words, as their modules declared them: test/pages/page-languages.test.ts finds
 * none of their English on a Turkish page.
 */
export const PAGE_WORDS: Record<Locale, unknown>[] = [];

/** The page's words `all`, read by the language of a page's context. */
export function pageWords<L>(all: { en: L; tr: NoInfer<L> }) {
  PAGE_WORDS.push(all);
  return ({ locale }: { locale: Locale }): L => all[locale];
}
