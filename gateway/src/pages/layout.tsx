// The one layout of every page: head (stylesheet, htmx, no inline script or style), a header with
// the navigation and sign-out, and the page's main content. Partner text is escaped where it is
// written (`safe`); `npm run check` runs xss-scan, which flags any that is not.
import type { Children } from '@kitajs/html';
import type { Response } from 'express';
import { CSRF_FIELD } from './forms.js';

export interface NavLink {
  href: string;
  label: string;
  /** A page outside the area (its own scripts): a whole page load, not htmx's swap. */
  leavesArea?: boolean;
}

export interface LayoutProps {
  title: string;
  /** Where the assets are served (pages/assets.ts). */
  assets: string;
  /** The product part's name, beside the title: "Console". */
  area: string;
  nav?: readonly NavLink[];
  /** The current path, marked in the navigation. */
  current?: string;
  /** Signed in: who, and the form that signs out. */
  signedIn?: { name: string; signOut: string; csrf: string };
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
  return (
    <>
      {'<!doctype html>'}
      <html lang="en">
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
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <span class="brand" safe>
              {props.area}
            </span>
            {props.nav ? (
              <nav aria-label="Main">
                <ul>
                  {props.nav.map((link) => (
                    <li>
                      <a
                        href={link.href}
                        aria-current={link.href === props.current ? 'page' : undefined}
                        hx-boost={link.leavesArea ? 'false' : undefined}
                        safe
                      >
                        {link.label}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
            ) : (
              ''
            )}
            {props.signedIn ? (
              <form method="post" action={props.signedIn.signOut} class="sign-out" hx-boost="false">
                <input type="hidden" name={CSRF_FIELD} value={props.signedIn.csrf} />
                <span safe>{props.signedIn.name}</span>
                <button type="submit">Sign out</button>
              </form>
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
