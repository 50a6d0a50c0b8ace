// One declaration per operation. The router, the OpenAPI document, the info endpoint and the
// tests' endpoint table are all derived from the list in gateway/src/endpoints.ts, so an endpoint
// is added in one place and cannot be mounted without deciding its scope.
import express, { type Request, type Router, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { ALL_CLASSES, collectReceived, projectionFor, type Received } from '#api/data-classes.js';
import type { Scope } from '#api/scopes.js';
import type { SqlTable } from '#api/sql-table.js';
import { clubOf } from '#api/sandbox.js';
import { identifyClient, type RequestClient } from './access-log.js';
import { authOf, type AuthContext, type Guard } from './authenticate.js';
import type { DataAges } from './data-age.js';
import { branchFilter } from './data-scope.js';
import { serviceUnavailable } from './errors.js';
import { refuseNulBytes } from './hostile-input.js';
import { sendJson } from './json-answer.js';
import type { ReadRouting } from './read-routing.js';
import type { RecipientsRecorder } from '#api/recipients.js';
import { withReads } from './replica-choice.js';
import type { ScopedRead } from './scoped-read.js';
import { parseInput } from './validation.js';

/** The groups of the info endpoint, in the specification's order. */
export const ENDPOINT_GROUPS = [
  'auth',
  'members',
  'branches',
  'packages',
  'financial',
  'dashboard',
  'market',
  'staff',
  'notifications',
  'private_lessons',
  'presence',
  'changes',
  'webhooks',
  'usage',
  'sandbox',
] as const;
export type EndpointGroup = (typeof ENDPOINT_GROUPS)[number];

/**
 * Who may call: `'public'` needs no token (token, refresh); `null` needs a valid token and no
 * scope (revoke); a scope needs a token holding it. There is no default.
 */
export type Access = Scope | null | 'public';

type Shape = z.ZodObject | undefined;
type Parsed<S extends Shape> = S extends z.ZodObject ? z.infer<S> : undefined;

/**
 * What a handler gets. `S`: what it may use beside the read model, declared where the app is
 * assembled (gateway/src/endpoint-services.ts), so this layer knows no feature.
 */
export interface EndpointContext<S, P extends Shape, Q extends Shape, B extends Shape> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  /** The caller; throws on a public endpoint, which has none. */
  auth: () => AuthContext;
  /** The read model as the caller may see it: the branch rule is already applied. */
  read: () => ScopedRead;
  services: S;
  header: (name: string) => string | undefined;
  /** The caller's address (behind a trusted proxy, the one it forwarded). */
  address: string | null;
  setHeader: (name: string, value: string) => void;
  /** Names the client a public endpoint's request is logged and counted under (token calls). */
  identify: (client: RequestClient) => void;
  /** Whether the client has closed the request before its answer: nobody would receive it. */
  clientGone: () => boolean;
  /**
   * Notes members' data the answer carries in a part its declared schema does not type (the
   * change feed's objects): the recipients record takes it with the rest.
   */
  carries: (schema: z.ZodType, value: unknown) => void;
  requestId: string;
}

export interface EndpointSpec<
  S,
  P extends Shape = undefined,
  Q extends Shape = undefined,
  B extends Shape = undefined,
  R extends z.ZodType = z.ZodType,
> {
  operationId: string;
  group: EndpointGroup;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI form under /api/v1, e.g. `/members/{id}`. */
  path: `/${string}`;
  summary: string;
  description?: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /** Whether the body may be left out (revoke). */
  bodyOptional?: boolean;
  response: R;
  status?: 200 | 201 | 202;
  /** Statuses beyond those every endpoint of its kind can answer (e.g. 409). */
  errors?: number[];
  /** Read-model tables behind the answer, for X-Data-Age; empty for none. */
  tables: readonly SqlTable[];
  /**
   * Reads only the primary, never a read replica (the change feed: its cursor stands on the
   * primary's transaction ids). Reads of any method but GET always do.
   */
  primaryOnly?: true;
  /** Handlers run before parsing (token endpoints' failed-attempt throttle). */
  before?: (services: S) => RequestHandler[];
  handle(ctx: EndpointContext<S, P, Q, B>): Promise<z.input<R>>;
}

// The list holds declarations of every input shape; each handler was type-checked against its
// own declaration by its defineEndpoint.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Endpoint<S = any> = EndpointSpec<S, any, any, any, any>;

/** The defineEndpoint of an app whose handlers get services `S`. */
export function endpointDefinition<S>() {
  return function defineEndpoint<
    P extends Shape = undefined,
    Q extends Shape = undefined,
    B extends Shape = undefined,
    R extends z.ZodType = z.ZodType,
  >(spec: EndpointSpec<S, P, Q, B, R>): Endpoint<S> {
    return spec;
  };
}

/** Express's path syntax for an OpenAPI path. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** What a request's handler reads and writes through: one set per club (api/sandbox.ts). */
export interface ClubDeps<S> {
  services: S;
  dataAges: DataAges;
  reads: ReadRouting;
  recipients: RecipientsRecorder;
}

export interface MountDeps<S> {
  guard: Guard;
  /**
   * The live club's parts, and the sandbox's (undefined when SANDBOX is off). A request is served
   * wholly by its client's club, chosen here once from its key: no handler, query or service
   * chooses, so a sandbox token cannot reach a live row, nor a live token a sandbox one
   * (docs/decisions/0024-sandbox.md).
   */
  clubs: { live: ClubDeps<S>; sandbox: ClubDeps<S> | undefined };
}

/** The club serving this request: the live one for a call without a token (token requests). */
function clubFor<S>(deps: MountDeps<S>, res: Response): ClubDeps<S> {
  if (res.locals.auth === undefined || clubOf(authOf(res).clientKey) === 'live') {
    return deps.clubs.live;
  }
  if (!deps.clubs.sandbox)
    throw serviceUnavailable(3600, 'Deneme ortamı (sandbox) bu kurulumda kapalı.');
  return deps.clubs.sandbox;
}

/**
 * A bound client naming another branch explicitly (a `branch_id` filter, or `branch_id` in a
 * body) is refused with 403, whatever the endpoint: the scoped read would only answer nothing.
 */
function checkNamedBranch(res: Response, ...inputs: unknown[]) {
  if (res.locals.auth === undefined) return;
  const { dataScope } = authOf(res);
  for (const input of inputs) {
    const named = (input as { branch_id?: unknown } | undefined)?.branch_id;
    if (typeof named === 'number') branchFilter(dataScope, named);
  }
}

function contextOf<S>(
  endpoint: Endpoint<S>,
  req: Request,
  res: Response,
  read: () => ScopedRead,
  services: S,
  received: Received,
) {
  const query: unknown = endpoint.query ? parseInput(endpoint.query, req.query) : undefined;
  const body: unknown = endpoint.body ? parseInput(endpoint.body, req.body ?? {}) : undefined;
  checkNamedBranch(res, query, body);
  const params: unknown = endpoint.params ? parseInput(endpoint.params, req.params) : undefined;
  return {
    params,
    query,
    body,
    auth: () => authOf(res),
    read,
    services,
    header: (name: string) => req.get(name),
    address: req.ip ?? null,
    setHeader: (name: string, value: string) => void res.set(name, value),
    identify: (client: RequestClient) => identifyClient(res, client),
    clientGone: () => res.closed,
    carries: (schema: z.ZodType, value: unknown) =>
      collectReceived(schema, authOf(res).dataClasses, value, received),
    requestId: res.locals.requestId as string,
  };
}

/**
 * The answer without the fields of the classes of personal data the caller does not hold: every
 * endpoint's answer passes here, by the classes its declared response schema names
 * (api/data-classes.ts), so no handler withholds by itself and none can forget to.
 */
function withheld(response: z.ZodType, res: Response, result: unknown): unknown {
  if (res.locals.auth === undefined) return result;
  const mask = authOf(res).dataClasses;
  return mask === ALL_CLASSES ? result : projectionFor(response, mask)(result);
}

/**
 * Records which members' data the answer carries to its client, before it leaves (the recipients
 * record, api/recipients.ts); nothing to wait for when all of it is recorded already.
 */
async function recorded(
  response: z.ZodType,
  res: Response,
  answer: unknown,
  received: Received,
  recipients: RecipientsRecorder,
) {
  if (res.locals.auth === undefined) return;
  const { clientId, dataClasses } = authOf(res);
  collectReceived(response, dataClasses, answer, received);
  const written = recipients.record(clientId, received);
  if (written) await written;
}

function handlerOf<S>(endpoint: Endpoint<S>, deps: MountDeps<S>): RequestHandler {
  const mayUseReplica = endpoint.method === 'GET' && endpoint.primaryOnly !== true;
  return async (req, res) => {
    const received: Received = new Map();
    const club = clubFor(deps, res);
    const { result, lagMs } = await withReads<unknown>(club.reads, res, mayUseReplica, (read) =>
      endpoint.handle(contextOf(endpoint, req, res, read, club.services, received)),
    );
    if (endpoint.tables.length > 0) {
      const age = await club.dataAges.ageOf(endpoint.tables, lagMs);
      if (age !== null) res.set('X-Data-Age', age);
    }
    const response = endpoint.response as z.ZodType;
    const answer = withheld(response, res, result);
    await recorded(response, res, answer, received, club.recipients);
    sendJson(req, res, endpoint.status ?? 200, answer);
  };
}

/** The JSON body of an endpoint that declares one. */
const jsonBody = express.json({ limit: '100kb' });

/**
 * The declared endpoints as routes of `target` under `prefix` (`/api/v1`): the app itself, so a
 * request walks no second router. A route parses a body only where its endpoint declares one: a
 * GET walks no body parser (the API's reads are nearly all of its traffic, and every layer Express
 * walks costs each of them). Input no route can use is refused before the token is checked.
 */
export function mountEndpoints<S>(
  target: Pick<Router, 'get' | 'post' | 'put' | 'patch' | 'delete'>,
  endpoints: readonly Endpoint<S>[],
  deps: MountDeps<S>,
  prefix = '',
): void {
  for (const endpoint of endpoints) {
    // The type requires a decision; this catches a declaration that slipped past it.
    if (endpoint.access === undefined) {
      throw new Error(`${endpoint.operationId} declares no access (scope, null or 'public')`);
    }
    const body = endpoint.body ? [jsonBody] : [];
    const guard = endpoint.access === 'public' ? [] : [deps.guard(endpoint.access)];
    const before = endpoint.before?.(deps.clubs.live.services) ?? [];
    const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    target[method](
      prefix + expressPath(endpoint.path),
      ...body,
      refuseNulBytes,
      ...guard,
      ...before,
      handlerOf(endpoint, deps),
    );
  }
}
