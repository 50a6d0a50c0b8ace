// The one layout of every page: head (stylesheet, htmx, no inline script or style), a header with
// the navigation and sign-out, and the page's main content. Partner text is escaped where it is
// written (`safe`); `npm run check` runs xss-scan, which flags any that is not.
import type { Children } from '@kitajs/html';
import type { Request, Response } from 'express';
import type { Area, NavLink, Visitor } from './areas.js';
import { CSRF_FIELD, formToken, renderedFor } from './forms.js';
import { LanguageSwitch, type PageLanguage } from './language.js';

export interface LayoutProps {
  title: string;
  /** The page's language: `<html lang>`, the frame's words, the switch (pages/language.tsx). */
  language: PageLanguage;
  /** Where the language switch is served: the area's prefix. */
  prefix: string;
  /** Where the assets are served (pages/assets.ts). */
  assets: string;
  /** The product part's name, beside the title: "Console". */
  area: string;
  nav?: readonly NavLink[];
  /** The current path, marked in the navigation. */
  current?: string;
  /** Signed in: who, and where the form that signs out posts. */
  signedIn?: { name: string; signOut: string };
  children?: Children;
}

// htmx must not add its own <style> element (the CSP allows only the stylesheet's files), and
// answers with an error status still replace the page: they carry the message the operator reads.
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  responseHandling: [
    { code: '204', swap: false },
    { code: '[2345]..', swap: true, error: false },
  ],
});

export function Layout(props: LayoutProps) {
  const { t } = props.language;
  return (
    <>
      {'<!doctype html>'}
      <html lang={props.language.locale}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="htmx-config" content={HTMX_CONFIG} />
          <title safe>{`${props.title} · ${props.area}`}</title>
          {/* No icon: a browser would otherwise ask for /favicon.ico, which is not ours to serve. */}
          <link rel="icon" href="data:," />
          <link rel="stylesheet" href={`${props.assets}/pages.css`} />
          {/* On every page: htmx swaps only the body when following a link, never the head. */}
          <link rel="stylesheet" href={`${props.assets}/uplot.min.css`} />
          <script src={`${props.assets}/htmx.min.js`} defer></script>
          <script src={`${props.assets}/uplot.min.js`} defer></script>
          <script src={`${props.assets}/charts.js`} defer></script>
        </head>
        <body hx-boost="true">
          <a class="skip" href="#main" safe>
            {t.frame.skip}
          </a>
          <header class="top">
            <span class="brand" safe>
              {props.area}
            </span>
            {props.nav ? (
              <nav aria-label={t.frame.nav}>
                <ul>
                  {props.nav.map((link) => (
                    <li>
                      <a
                        href={link.href}
                        aria-current={link.href === props.current ? 'page' : undefined}
                        hx-boost={link.leavesArea ? 'false' : undefined}
                        safe
                      >
                        {link.label(props.language)}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
            ) : (
              ''
            )}
            <LanguageSwitch language={props.language} prefix={props.prefix} />
            {props.signedIn ? (
              <PostForm action={props.signedIn.signOut} class="sign-out" hx-boost="false">
                <span safe>{props.signedIn.name}</span>
                <button type="submit" safe>
                  {t.frame.signOut}
                </button>
              </PostForm>
            ) : (
              ''
            )}
          </header>
          <main id="main">
            <h1 safe>{props.title}</h1>
            {props.children}
          </main>
        </body>
      </html>
    </>
  );
}

/**
 * A form that posts: it carries the session's CSRF token (forms.ts) itself, so no page writes it.
 * Rendered only inside `renderedFor` (sendAreaPage and the page declarations do so).
 */
export function PostForm(props: {
  action: string;
  class?: string;
  /** 'false': a whole page load (the session changes with it), not htmx's swap. */
  'hx-boost'?: 'false';
  /** 'false': htmx keeps no copy of the page in its history cache (its address holds a link). */
  'hx-history'?: 'false';
  children?: Children;
}) {
  return (
    <form
      method="post"
      action={props.action}
      class={props.class}
      hx-boost={props['hx-boost']}
      hx-history={props['hx-history']}
    >
      <input type="hidden" name={CSRF_FIELD} value={formToken()} />
      {props.children}
    </form>
  );
}

/**
 * An area's frame (pages/areas.ts): its name, assets and, signed in, its navigation with the
 * current page marked and the sign-out form; signed out, neither.
 */
export function Frame<W>(props: {
  area: Area<W>;
  language: PageLanguage;
  title: string;
  /** The signed-in visitor; none on a sign-in page or a refusal before the gate. */
  visitor?: Visitor<W> | undefined;
  /** The navigation's entry to mark. */
  current?: string | undefined;
  children?: Children;
}) {
  const { area, visitor } = props;
  return (
    <Layout
      title={props.title}
      language={props.language}
      prefix={area.prefix}
      area={props.language.t.areas[area.session.name].label}
      assets={area.assets}
      nav={visitor?.nav}
      current={props.current}
      signedIn={visitor && { name: area.nameOf(visitor.who), signOut: `${area.prefix}/sign-out` }}
    >
      {props.children}
    </Layout>
  );
}

/** The area's frame with nobody signed in, as page-layers.tsx's refusals and end take it. */
export const publicFrame =
  <W,>(area: Area<W>) =>
  (props: { title: string; language: PageLanguage; children?: Children }) => (
    <Frame area={area} language={props.language} title={props.title}>
      {props.children}
    </Frame>
  );

/**
 * A message above a page's content: a refusal, or what was done. `secret`: it shows a secret or a
 * sign-in link, so htmx keeps no copy of the page in the browser's history cache (hx-history
 * false anywhere on a page leaves the whole page out; going back asks the server again).
 */
export function Notice(props: { kind: 'error' | 'done'; secret?: boolean; children?: Children }) {
  return (
    <div
      class={`notice ${props.kind}`}
      role={props.kind === 'error' ? 'alert' : 'status'}
      hx-history={props.secret ? 'false' : undefined}
    >
      {props.children}
    </div>
  );
}

/**
 * Sent with a sign-out: the browser drops what it kept of the signed-in pages, the HTTP cache and
 * the storage where htmx keeps its history of them (sessionStorage).
 */
export const CLEAR_SITE_DATA = ['Clear-Site-Data', '"cache", "storage"'] as const;

/** Sends the page `render` makes for `req`: its forms carry the request's session token. */
export const sendAreaPage = (
  req: Request,
  res: Response,
  render: () => JSX.Element,
  status = 200,
): Promise<void> => sendPage(res, renderedFor(req, render), status);

/** Sends a rendered page. */
export async function sendPage(
  res: Response,
  page: string | Promise<string>,
  status = 200,
): Promise<void> {
  res
    .status(status)
    .type('html')
    .send(await page);
}
