// English words of the portal's pages (docs/decisions/0025-page-languages.md); messages/en.ts
// puts the parts together, and the Turkish part is typed against this one.

export const portalWords = {
  /** The navigation's words for the portal's own pages (the shared ones: shared.ts). */
  nav: {
    apiDocs: 'API documentation',
  },
};
