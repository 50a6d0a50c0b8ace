// Turkish words of the portal's pages, typed against the English part (en/portal.ts): a
// missing word, or one taking other values, fails `npm run check`.
import type { portalWords as English } from '../en/portal.js';

export const portalWords = {
  nav: {
    apiDocs: 'API belgeleri',
  },
} satisfies typeof English;
