// The pages' Turkish words, in parts typed against the English ones (en/): a key missing here,
// or a message taking other values, fails `npm run check` (docs/decisions/0025-page-languages.md).
// Identifiers (scopes, client_key, webhook types, data classes) stay as they are.
import type { Messages } from './en.js';
import { consoleWords } from './tr/console.js';
import { portalWords } from './tr/portal.js';
import { sharedWords } from './tr/shared.js';

export const tr: Messages = {
  ...sharedWords,
  ...consoleWords,
  ...portalWords,
  nav: { ...sharedWords.nav, ...portalWords.nav },
};
