// Every state-changing request of a page carries the session's CSRF token (csrf-sync, the
// synchronizer token pattern) and comes from the page's own origin; otherwise 403. The Origin
// check stands on its own: it refuses a cross-site form even where a token leaked. A page never
// writes the token itself: layout.tsx's PostForm adds it to every form a page renders while
// `renderedFor` holds the request.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request, RequestHandler } from 'express';
import { csrfSync } from 'csrf-sync';
import type { Config } from '#common/config.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The hidden field every form carries. */
export const CSRF_FIELD = '_csrf';

const csrf = csrfSync({
  getTokenFromRequest: (req) => {
    const sent = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
    return typeof sent === 'string' ? sent : undefined;
  },
});

/** The session's token, made on first use; forms carry it in their CSRF_FIELD. */
const csrfToken = (req: Request): string => csrf.generateToken(req);

/** The request whose page is being rendered (the pages' JSX renders synchronously, in `render`). */
const rendering = new AsyncLocalStorage<Request>();

/** What `render` returns, with every PostForm in it carrying the request's session token. */
export const renderedFor = <T>(req: Request, render: () => T): T => rendering.run(req, render);

/**
 * The token of the request being rendered, made only when a page holds a form: a page without
 * one (a 404, a sign-in page) starts no session.
 */
export function formToken(): string {
  const req = rendering.getStore();
  if (!req) throw new Error('a form rendered outside renderedFor: it would carry no CSRF token');
  return csrfToken(req);
}

const FORBIDDEN = {
  'cross-site': 'the request did not come from this site',
  expired: 'the form has expired or did not come from this site',
} as const;

/** A refused form: from another site (no or a foreign Origin), or without the session's token. */
export class ForbiddenRequest extends Error {
  constructor(readonly why: keyof typeof FORBIDDEN) {
    super(FORBIDDEN[why]);
  }
}

function sameOrigin(req: Request, publicOrigin: string): boolean {
  const origin = req.get('origin');
  if (!origin || origin === 'null') return false;
  if (origin === publicOrigin) return true;
  try {
    // The origin the browser reached this gateway at (a proxy may sit in front of it).
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}

/** Refuses (403) a state-changing request from another origin or without the session's token. */
export function protectForms(config: Config): RequestHandler {
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    if (!sameOrigin(req, config.console.publicOrigin))
      return next(new ForbiddenRequest('cross-site'));
    if (!csrf.isRequestValid(req)) return next(new ForbiddenRequest('expired'));
    next();
  };
}
