// Signing in to an area with a single-use link (pages/sign-in-links.ts), signing out, and the gate
// in front of every other page of the area, one way for the console and the portal; each area's
// feature says what its links are, what its session holds and what its pages say
// (features/console/sign-in.tsx, features/portal/sign-in.tsx). Opening a link only shows a
// button, so a mail scanner's GET does not spend it; pressing it spends the link and opens a
// session under a new id.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { Config } from '#common/config.js';
import type { Area, NavLink, Visitor } from './areas.js';
import { languageOf, type PageLanguage } from './language.js';
import { CLEAR_SITE_DATA, Frame, Notice, PostForm, sendAreaPage } from './layout.js';
import type { Messages } from './messages/index.js';
import { destroySession, regenerateSession, sessionOutlived } from './session.js';

/** What an area's pages say about signing in, in one language's words (`SignInFlow.words`). */
export interface SignInWords<L> {
  /** How to sign in, on the page a signed-out visitor gets. */
  HowTo: () => JSX.Element;
  /** A link used already, expired, or never made. */
  invalid: { title: string; Text: () => JSX.Element };
  /** The page a link opens: what pressing its button does. */
  confirm: { title: string; button: string; Text: (props: { link: L }) => JSX.Element };
}

/** An area's sign-in: its links, its session and who the gate lets in. */
export interface SignInFlow<L, W> {
  /** The link a token names while it still opens the area, spent (for good) with `spend`. */
  link: (token: string, spend: boolean) => Promise<L | null>;
  /** Fills the new session from the link, and records the sign-in. */
  begin: (req: Request, link: L) => Promise<void>;
  /** Who the signed-in session is while it may go on (null: it has ended). */
  who: (req: Request) => Promise<W | null>;
  /** Records a sign-out, before the session goes. */
  end: (req: Request) => Promise<void>;
  /**
   * After its holder's own change of the credentials the session stands on (a partner rotating
   * its secret), the session follows the new ones, so the one who made it stays signed in.
   */
  follow?: (req: Request, who: W) => Promise<void>;
  /** The sign-in pages' words in the language of the catalogue `t`. */
  words: (t: Messages) => SignInWords<L>;
}

/** A new session id for the signed-in, with the time its longest life counts from. */
export async function beginSession(req: Request): Promise<void> {
  // One planted before sign-in is worth nothing after it.
  await regenerateSession(req);
  req.session.signedInAt = Date.now();
}

function SignedOut<L, W>(props: {
  area: Area<W>;
  language: PageLanguage;
  words: SignInWords<L>;
  reason?: string;
}) {
  return (
    <Frame area={props.area} language={props.language} title={props.language.t.signIn.title}>
      {props.reason ? (
        <Notice kind="error">
          <span safe>{props.reason}</span>
        </Notice>
      ) : (
        ''
      )}
      <props.words.HowTo />
    </Frame>
  );
}

/** The routes of signing in and out, before the gate. */
export function signInRoutes<L, W>(router: Router, area: Area<W>, flow: SignInFlow<L, W>): void {
  const { prefix, home } = area;
  const signedIn = (req: Request) => req.session[area.session.holder] !== undefined;
  const landing = (req: Request) => area.landing?.(req.session) ?? home;
  const language = (req: Request, res: Response) => {
    const chosen = languageOf(req, res, area);
    return { language: chosen, words: flow.words(chosen.t) };
  };
  const invalid = (req: Request, res: Response) => {
    const { language: chosen, words } = language(req, res);
    return sendAreaPage(
      req,
      res,
      () => (
        <Frame area={area} language={chosen} title={words.invalid.title}>
          <Notice kind="error">
            <words.invalid.Text />
          </Notice>
        </Frame>
      ),
      410,
    );
  };

  router.get(prefix, async (req, res) => {
    if (signedIn(req)) return res.redirect(303, landing(req));
    const { language: chosen, words } = language(req, res);
    await sendAreaPage(req, res, () => <SignedOut area={area} language={chosen} words={words} />);
  });

  router.get(`${prefix}/sign-in/:token`, async (req, res) => {
    const link = await flow.link(req.params.token, false);
    if (!link) return invalid(req, res);
    const { language: chosen, words } = language(req, res);
    await sendAreaPage(req, res, () => (
      <Frame area={area} language={chosen} title={words.confirm.title}>
        <words.confirm.Text link={link} />
        {/* A whole page load: the session changes, and with it every page. Its address holds the
        link: no copy of the page in htmx's history cache. */}
        <PostForm action={req.originalUrl} hx-boost="false" hx-history="false">
          <button type="submit" safe>
            {words.confirm.button}
          </button>
        </PostForm>
      </Frame>
    ));
  });

  router.post(`${prefix}/sign-in/:token`, async (req, res) => {
    const link = await flow.link(req.params.token, true);
    if (!link) return invalid(req, res);
    await beginSession(req);
    await flow.begin(req, link);
    res.redirect(303, landing(req));
  });

  router.post(`${prefix}/sign-out`, async (req, res) => {
    if (signedIn(req)) await flow.end(req);
    await destroySession(req);
    res.set(...CLEAR_SITE_DATA).redirect(303, prefix);
  });
}

/** The visitor the area's gate let in with this request. */
export const whoOf = <W,>(res: Response): W => res.locals.who as W;

/** The signed-in visitor and its navigation (page.tsx puts it after the gate); none before. */
export const visitorOf = <W,>(res: Response): Visitor<W> | undefined =>
  res.locals.who === undefined
    ? undefined
    : { who: res.locals.who as W, nav: (res.locals.nav as NavLink[] | undefined) ?? [] };

/**
 * Every other page of the area needs a live session: its visitor, as the flow finds them, is the
 * request's `who` (page.tsx); without one the session goes and the sign-in page answers 401.
 */
export function areaGate<L, W>(
  area: Area<W>,
  flow: SignInFlow<L, W>,
  config: Config,
): RequestHandler {
  return async (req, res, next) => {
    const { signedInAt } = req.session;
    const live = signedInAt !== undefined && !sessionOutlived(signedInAt, config);
    const who = live ? await flow.who(req) : null;
    if (who !== null) {
      res.locals.who = who;
      return next();
    }
    const ended = req.session[area.session.holder] !== undefined;
    await destroySession(req);
    const language = languageOf(req, res, area);
    const reason = ended ? language.t.areas[area.session.name].ended : undefined;
    const words = flow.words(language.t);
    await sendAreaPage(
      req,
      res,
      () => <SignedOut area={area} language={language} words={words} reason={reason} />,
      401,
    );
  };
}
