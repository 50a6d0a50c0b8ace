// The pages' English words: the source of the catalogue's keys (docs/decisions/0025-page-languages.md).
// Every word a console or portal page shows is in en/ and in tr/, whose parts are typed against
// these, so a missing Turkish word fails `npm run check`. Words with values are functions; names
// that are identifiers (scopes, client_key, webhook types, data classes) are shown as they are.
import { consoleWords } from './en/console.js';
import { portalWords } from './en/portal.js';
import { sharedWords } from './en/shared.js';

export const en = {
  ...sharedWords,
  ...consoleWords,
  ...portalWords,
  nav: { ...sharedWords.nav, ...portalWords.nav },
};

/** The shape every language's catalogue has: the English one's. */
export type Messages = typeof en;
