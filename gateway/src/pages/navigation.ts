// An area's navigation (pages/areas.ts): its pages' entries (a page's `nav`, page.tsx), in the
// order of the area's list (features/<area>/<area>.routes.tsx), then the area's links outside it.
import type { RequestHandler } from 'express';
import type { Area, NavLink } from './areas.js';

/** What the navigation reads of a page's declaration (page.tsx PageSpec). */
interface Listed<S, W> {
  kind: 'page' | 'download';
  path: string;
  nav?: NavLink['label'] | undefined;
  only?: { allows(who: W, services: S): boolean; message?: unknown } | undefined;
}

/** The navigation's entries of an area's pages, in their list's order, each with its page. */
export const navigationOf = <S, W>(pages: readonly Listed<S, W>[]) =>
  pages.flatMap((page) =>
    page.kind === 'page' && page.nav ? [{ page, link: { href: page.path, label: page.nav } }] : [],
  );

/**
 * Puts the signed-in visitor's navigation where the frame finds it (sign-in.tsx visitorOf): the
 * area's pages with an entry, in the order of its list, but those whose `only` keeps them from the
 * visitor unknown (its 404), then the area's links. A page that tells why it refuses keeps its
 * entry: the partner learns what it lacks.
 */
export function navigation<S, W>(
  area: Area<W>,
  pages: readonly Listed<S, W>[],
  services: S,
): RequestHandler {
  const entries = navigationOf(pages);
  return (_req, res, next) => {
    const who = res.locals.who as W;
    const known = entries.filter(
      ({ page: { only } }) => !only || only.message !== undefined || only.allows(who, services),
    );
    res.locals.nav = [...known.map(({ link }) => link), ...(area.links ?? [])];
    next();
  };
}
