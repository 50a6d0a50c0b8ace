// One declaration per page, as the API has one per endpoint (http/endpoint.ts): a page of the
// console or the portal states its path, its area (pages/areas.ts: session, gate, navigation,
// frame), the zod schemas of its address and query, `load` (what it shows, read through the
// services and repositories), `view` (JSX) and its `actions`, each a form's POST whose handler is
// one call into a service answering an outcome. The forms' CSRF field (layout.tsx's PostForm),
// the notice of an outcome or a refusal (outcome.tsx) and a path that names nothing (the area's
// 404) are this file's, so no page writes them, and the order pages are mounted in does not
// matter: an address its schema refuses is another page's, or none.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { Config } from '#common/config.js';
import type { RedisClient } from '#common/redis.js';
import { parseInput } from '../http/validation.js';
import { assetRoutes } from './assets.js';
import type { Area } from './areas.js';
import { languageOf, languageRoutes, type PageLanguage, type Words } from './language.js';
import { Frame, publicFrame, sendAreaPage } from './layout.js';
import { OutcomeNotice, refusalOf, type Outcome } from './outcome.js';
import { navigation } from './navigation.js';
import { areaEnd, pageLayers } from './page-layers.js';
import { areaGate, signInRoutes, visitorOf, type SignInFlow } from './sign-in.js';

type Shape = z.ZodType | undefined;

type Parsed<T extends Shape> = T extends z.ZodType ? z.output<T> : Record<string, never>;

/** What a page's `load`, `view` and actions get. `S`: the services (gateway/src/page-services.ts). */
export interface PageContext<S, W, P, Q> extends Words {
  services: S;
  /** Who the area's gate let in: the operator, or the partner with its client. */
  who: W;
  params: P;
  query: Q;
}

/** What a view gets beside its data: the context, and the outcome shown above it, if any. */
export type ViewContext<S, W, P, Q> = PageContext<S, W, P, Q> & { outcome: Outcome | undefined };

export interface ActionSpec<S, W, P extends Shape, B extends Shape> {
  /** After the page's own path (`/:key/disable`); the page's path itself when left out. */
  path?: string;
  /** The whole path's parameters; the page's when left out. A path they refuse is not found. */
  params?: P;
  body?: B;
  /**
   * The change ends the credentials the partner's session began under, and the partner made it
   * itself: its session follows the client's new ones (the flow's `follow`), so it stays.
   */
  keepsSession?: true;
  /** The query the page shows after it (an erased member's own page). */
  shows?(params: Parsed<P>): Record<string, string>;
  run(
    ctx: PageContext<S, W, Parsed<P>, Record<string, never>> & { body: Parsed<B> },
  ): Promise<Outcome>;
}

/** An action of any input shape; each was type-checked against its own schemas by its definition. */
export type Action<S, W> = ActionSpec<S, W, Shape, Shape>;

export interface PageSpec<S, W, P extends Shape, Q extends Shape, D> {
  area: Area<W>;
  /** Express's form, under the area's prefix: `/portal/webhooks/:id`. */
  path: `/${string}`;
  /** The navigation entry marked: the page's own path when left out. */
  current?: string;
  /**
   * Its entry's words in the area's navigation, when it has one: the pages' list in the area's
   * routes (features/<area>/<area>.routes.tsx) is the navigation's order. Shown to those its
   * `only` lets in.
   */
  nav?: (words: Words) => string;
  /**
   * In the page's words: fixed, or `of` the data (then declared after `load`, from which
   * TypeScript reads the data).
   */
  title: ((words: Words) => string) | { of: (words: Words, data: D) => string };
  /** The path's parameters; a path they refuse names no page (the area's 404). */
  params?: P;
  /** The query; a query it refuses is a refusal shown on the page. */
  query?: Q;
  /**
   * Who of those the gate lets in may open it and post its forms; the others get `message` under
   * `title` with 403, or without them the area's 404: the page is not theirs to know of (and its
   * actions do not run for them).
   */
  only?: {
    allows(who: W, services: S): boolean;
    title?: (words: Words) => string;
    message?: (words: Words) => string;
  };
  /**
   * What the view shows; null when the path names nothing (404). A page whose path names one
   * thing is loaded before its actions too: an action on nothing found is not run.
   */
  load(ctx: PageContext<S, W, Parsed<P>, Parsed<Q>>): Promise<D | null>;
  view(data: D, ctx: ViewContext<S, W, Parsed<P>, Parsed<Q>>): JSX.Element;
  actions?: readonly Action<S, W>[];
}

/** A file a page offers (a CSV): its refusals are shown in the area's frame under `title`. */
export interface DownloadSpec<S, W, Q extends Shape> {
  area: Area<W>;
  path: `/${string}`;
  current: string;
  title: (words: Words) => string;
  query?: Q;
  file(
    ctx: PageContext<S, W, Record<string, never>, Parsed<Q>>,
  ): Promise<{ name: string; type: string; body: string }>;
}

// The lists hold pages of every area and shape; each was type-checked by its own definePage.
/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyPage<S> = PageSpec<S, any, Shape, Shape, any>;
type AnyDownload<S> = DownloadSpec<S, any, Shape>;
/* eslint-enable @typescript-eslint/no-explicit-any */
export type Page<S> = ({ kind: 'page' } & AnyPage<S>) | ({ kind: 'download' } & AnyDownload<S>);

/** The definePage, defineDownload and action of pages whose services are `S`. */
export function pageDefinition<S>() {
  return {
    definePage: <W, P extends Shape = undefined, Q extends Shape = undefined, D = unknown>(
      spec: PageSpec<S, W, P, Q, D>,
    ): Page<S> => ({ kind: 'page', ...spec }),
    defineDownload: <W, Q extends Shape = undefined>(spec: DownloadSpec<S, W, Q>): Page<S> => ({
      kind: 'download',
      ...spec,
    }),
  };
}

/** The action of an area whose visitors are `W`. */
export const actionDefinition =
  <S, W>() =>
  <P extends Shape = undefined, B extends Shape = undefined>(
    spec: ActionSpec<S, W, P, B>,
  ): Action<S, W> =>
    spec;

/** The path's parameters by `schema`, or null when they name nothing. */
function paramsOf(schema: Shape, req: Request): unknown {
  if (!schema) return {};
  const parsed = schema.safeParse(req.params);
  return parsed.success ? parsed.data : null;
}

/** A page's address with its parameters filled in, and the query it shows. */
function addressOf(path: string, params: unknown, query: Record<string, string> | undefined) {
  const values = params as Record<string, unknown>;
  const filled = path.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(String(values[name])),
  );
  return query ? `${filled}?${new URLSearchParams(query).toString()}` : filled;
}

/** What a request of a page is: its services, its visitor, its address and query, its words. */
type Context<S> = PageContext<S, unknown, unknown, unknown>;

/** The context's part that is the request's language. */
const wordsOf = ({ locale, t, format }: PageLanguage): Words => ({ locale, t, format });

/** Where a page is and is marked in the navigation. */
type Placed = Pick<AnyPage<unknown>, 'area' | 'path' | 'current'>;

interface Shown {
  title: string;
  outcome?: Outcome | undefined;
  status?: number | undefined;
}

/** Sends the area's frame, with `outcome` above `content`. */
function sendFramed(
  page: Placed,
  req: Request,
  res: Response,
  shown: Shown,
  content: (outcome: Outcome | undefined) => JSX.Element = () => '',
) {
  const language = languageOf(req, res, page.area);
  return sendAreaPage(
    req,
    res,
    () => (
      <Frame
        area={page.area}
        language={language}
        visitor={visitorOf(res)}
        title={shown.title}
        current={page.current ?? page.path}
      >
        <OutcomeNotice outcome={shown.outcome} language={language} />
        {content(shown.outcome)}
      </Frame>
    ),
    shown.status,
  );
}

/** The page's title; a refusal's page before any data has the page's title when it is fixed. */
const titleOf = (page: AnyPage<unknown>, words: Words, data?: unknown): string =>
  typeof page.title === 'function'
    ? page.title(words)
    : data === undefined
      ? words.t.errors.refusedTitle
      : page.title.of(words, data);

/** Runs `attempt`; a refusal it throws is sent as the page's notice, any other error goes on. */
async function refusedOr<T>(
  page: AnyPage<unknown>,
  req: Request,
  res: Response,
  attempt: () => T | Promise<T>,
): Promise<{ value: T } | null> {
  try {
    return { value: await attempt() };
  } catch (error) {
    const language = languageOf(req, res, page.area);
    const refusal = refusalOf(error, language);
    if (!refusal) throw error;
    await sendFramed(page, req, res, { title: titleOf(page, language), ...refusal });
    return null;
  }
}

/** Loads and sends the page, with `after` (an action's outcome) above it. */
async function show<S>(
  page: AnyPage<S>,
  ctx: Context<S>,
  req: Request,
  res: Response,
  next: () => void,
  after?: { outcome: Outcome; status: number },
) {
  const loaded = await refusedOr(page, req, res, () => page.load(ctx) as Promise<unknown>);
  if (!loaded) return;
  const data = loaded.value;
  if (data === null) return next();
  await sendFramed(page, req, res, { title: titleOf(page, ctx, data), ...after }, (outcome) =>
    page.view(data, { ...ctx, outcome }),
  );
}

/** The query `raw` is by `schema`; a query it refuses throws the refusal. */
const queryOf = (schema: Shape, raw: unknown): unknown => (schema ? parseInput(schema, raw) : {});

function mountPage<S, W>(router: Router, page: AnyPage<S>, services: S, follow: Follow<W>): void {
  /**
   * The request's visitor and address; null when the address names nothing for the visitor (not
   * found), undefined once the visitor was refused.
   */
  async function visit(req: Request, res: Response, schema: Shape) {
    const params = paramsOf(schema, req);
    if (params === null) return null;
    const who = res.locals.who as W;
    const words = wordsOf(languageOf(req, res, page.area));
    if (page.only && !page.only.allows(who, services)) {
      const { title, message } = page.only;
      if (title === undefined || message === undefined) return null;
      const outcome = { kind: 'error', message: message(words) } as const;
      await sendFramed(page, req, res, { title: title(words), outcome, status: 403 });
      return undefined;
    }
    return { services, who, params, ...words };
  }

  router.get(page.path, async (req, res, next) => {
    const found = await visit(req, res, page.params);
    if (found === null) return next();
    const query = found && (await refusedOr(page, req, res, () => queryOf(page.query, req.query)));
    if (found && query) await show(page, { ...found, query: query.value }, req, res, next);
  });

  for (const action of page.actions ?? []) {
    router.post(`${page.path}${action.path ?? ''}`, async (req, res, next) => {
      const found = await visit(req, res, action.params ?? page.params);
      if (found === null) return next();
      if (!found) return;
      const params = paramsOf(page.params, req);
      const shows = action.shows?.(found.params);
      const ctx = { ...found, params, query: queryOf(page.query, shows ?? {}) };
      // An action on the one thing the page's path names runs only on something found.
      if (page.params && (await page.load(ctx)) === null) return next();
      let after: { outcome: Outcome; status: number };
      try {
        const body: unknown = action.body ? parseInput(action.body, req.body ?? {}) : undefined;
        after = { outcome: await action.run({ ...found, query: {}, body }), status: 200 };
        if (action.keepsSession) await follow?.(req, found.who);
      } catch (error) {
        const refusal = refusalOf(error, found);
        if (!refusal) throw error;
        after = refusal;
      }
      // After a form the address is the page's own, so reloading it repeats nothing.
      res.set('HX-Push-Url', addressOf(page.path, params, shows));
      await show(page, ctx, req, res, next, after);
    });
  }
}

function mountDownload<S>(router: Router, download: AnyDownload<S>, services: S): void {
  router.get(download.path, async (req, res) => {
    const words = wordsOf(languageOf(req, res, download.area));
    try {
      const query = queryOf(download.query, req.query);
      const who = res.locals.who as unknown;
      const file = await download.file({ services, who, params: {}, query, ...words });
      res.type(file.type).attachment(file.name).send(file.body);
    } catch (error) {
      const refusal = refusalOf(error, words);
      if (!refusal) throw error;
      await sendFramed(download, req, res, { title: download.title(words), ...refusal });
    }
  });
}

/** How a session follows its holder's own change of credentials (sign-in.tsx SignInFlow). */
type Follow<W> = SignInFlow<unknown, W>['follow'];

/**
 * The pages of `area` as routes of `router`, each with its full path (as the API's, app.ts), after
 * the area's gate: `res.locals.who` is its visitor.
 */
function mountPages<S, W>(
  router: Router,
  area: Area<W>,
  pages: readonly Page<S>[],
  services: S,
  follow: Follow<W>,
): void {
  for (const page of pages) {
    // A declaration mounted in the wrong area would meet another area's session and gate.
    if (page.area !== area || !page.path.startsWith(`${area.prefix}/`))
      throw new Error(`${page.path} is not a page of ${area.prefix}`);
    if (page.kind === 'page') mountPage(router, page, services, follow);
    else mountDownload(router, page, services);
  }
}

/** What makes an area's routes beside its description (areas.ts). */
export interface AreaParts<S, L, W> {
  services: S;
  flow: SignInFlow<L, W>;
  /**
   * Every page of the area: a path its schemas refuse is another page's, so the order matters
   * only to the navigation, which shows those with an entry in this order.
   */
  pages: readonly Page<S>[];
  /** Routes of the area that need no session, beside the sign-in links' (the console's OIDC). */
  open?: (router: Router) => void;
  /** Run after the gate, before the pages (the portal's request limit). */
  guarded?: readonly RequestHandler[];
}

/**
 * An area's routes, each with its full path (as the API's, app.ts): its assets; its layers
 * (page-layers.tsx), for its paths only; signing in and out; the gate; its pages; its end (the
 * area's 404, refused-request and 500 pages).
 */
export function areaRoutes<S extends { redis: RedisClient; config: Config }, L, W>(
  area: Area<W>,
  parts: AreaParts<S, L, W>,
): Router {
  const { services, flow } = parts;
  const router = Router();
  router.use(assetRoutes(area.assets));
  const Public = publicFrame(area);
  const language = (req: Request, res: Response) => languageOf(req, res, area);
  router.use(
    area.prefix,
    pageLayers({
      redis: services.redis,
      config: services.config,
      name: area.session.name,
      page: Public,
      language,
      // A path none of the area's routes serves is its 404 before the gate, signed out too.
      area: router,
      home: area.prefix,
    }),
  );
  languageRoutes(router, area.prefix, services.config);
  signInRoutes(router, area, flow);
  parts.open?.(router);
  router.use(
    area.prefix,
    areaGate(area, flow, services.config),
    navigation(area, parts.pages, services),
    ...(parts.guarded ?? []),
  );
  mountPages(router, area, parts.pages, services, flow.follow);
  router.use(area.prefix, areaEnd(Public, area.prefix, language));
  return router;
}
