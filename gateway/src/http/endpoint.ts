// One declaration per operation. The router, the OpenAPI document, the info endpoint and the
// tests' endpoint table are all derived from the list in gateway/src/endpoints.ts, so an endpoint
// is added in one place and cannot be mounted without deciding its scope.
import express, { type Request, type Router, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { AuthThrottle } from '../features/auth/auth-throttle.js';
import type { CursorCodec } from '../../../api/changes/cursor.js';
import type { Scope } from '../../../api/scopes.js';
import type { SqlTable } from '../../../api/sql-table.js';
import type { TargetRules } from '../../../api/webhooks/targets.js';
import type { TokenService } from '../features/auth/tokens.service.js';
import type { MemberWrites } from '../features/members/members.write.js';
import type { WebhookService } from '../features/webhooks/webhooks.service.js';
import { authOf, readAfterOf, type AuthContext, type Guard } from './authenticate.js';
import type { DataAges } from './data-age.js';
import { branchFilter } from './data-scope.js';
import { parseInput } from './validation.js';
import type { ScopedRead } from './scoped-read.js';
import type { ReadChoice, ReadRouting } from './read-routing.js';
import { isDependencyDown } from './error-handler.js';
import { refuseNulBytes } from './hostile-input.js';

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
] as const;
export type EndpointGroup = (typeof ENDPOINT_GROUPS)[number];

/**
 * Who may call: `'public'` needs no token (token, refresh); `null` needs a valid token and no
 * scope (revoke); a scope needs a token holding it. There is no default.
 */
export type Access = Scope | null | 'public';

/** What handlers may use beside the read model; features add what they need here. */
export interface EndpointServices {
  tokens: TokenService;
  throttle: AuthThrottle;
  memberWrites: MemberWrites;
  /** How long the change feed keeps deletes (CHANGES_RETENTION_DAYS); its signed cursors. */
  changes: { retentionMs: number; cursors: CursorCodec };
  webhooks: { service: WebhookService; targets: TargetRules };
}

type Shape = z.ZodObject | undefined;
type Parsed<S extends Shape> = S extends z.ZodObject ? z.infer<S> : undefined;

export interface EndpointContext<P extends Shape, Q extends Shape, B extends Shape> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  /** The caller; throws on a public endpoint, which has none. */
  auth: () => AuthContext;
  /** The read model as the caller may see it: the branch rule is already applied. */
  read: () => ScopedRead;
  services: EndpointServices;
  header: (name: string) => string | undefined;
  setHeader: (name: string, value: string) => void;
  requestId: string;
}

export interface EndpointSpec<
  P extends Shape = undefined,
  Q extends Shape = undefined,
  B extends Shape = undefined,
  R extends z.ZodType = z.ZodType,
> {
  operationId: string;
  group: EndpointGroup;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
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
  before?: (services: EndpointServices) => RequestHandler[];
  handle(ctx: EndpointContext<P, Q, B>): Promise<z.input<R>>;
}

// The list holds declarations of every input shape; each handler was type-checked against its
// own declaration by defineEndpoint.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Endpoint = EndpointSpec<any, any, any, any>;

export function defineEndpoint<
  P extends Shape = undefined,
  Q extends Shape = undefined,
  B extends Shape = undefined,
  R extends z.ZodType = z.ZodType,
>(spec: EndpointSpec<P, Q, B, R>): Endpoint {
  return spec;
}

/** Express's path syntax for an OpenAPI path. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

export interface MountDeps {
  guard: Guard;
  services: EndpointServices;
  dataAges: DataAges;
  reads: ReadRouting;
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

/** Where the request's reads go: a replica only for a GET that may, and while none failed. */
function readerOf(endpoint: Endpoint, res: Response, deps: MountDeps, onPrimary: boolean) {
  let chosen: ReadChoice | undefined;
  const primary = onPrimary || endpoint.primaryOnly === true || endpoint.method !== 'GET';
  return {
    choice: () =>
      (chosen ??= deps.reads.choose(authOf(res).dataScope, primary ? null : readAfterOf(res))),
    chosen: () => chosen,
  };
}

function contextOf(
  endpoint: Endpoint,
  req: Request,
  res: Response,
  reader: ReturnType<typeof readerOf>,
  deps: MountDeps,
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
    read: () => reader.choice().read,
    services: deps.services,
    header: (name: string) => req.get(name),
    setHeader: (name: string, value: string) => void res.set(name, value),
    requestId: res.locals.requestId as string,
  };
}

function handlerOf(endpoint: Endpoint, deps: MountDeps): RequestHandler {
  return async (req, res) => {
    let reader = readerOf(endpoint, res, deps, false);
    let body: unknown;
    try {
      body = await endpoint.handle(contextOf(endpoint, req, res, reader, deps));
    } catch (error) {
      // A replica that went away mid-read (stopped, restarted): the same read, on the primary.
      const replica = reader.chosen();
      if (!replica || replica.target === 'primary' || !isDependencyDown(error)) throw error;
      replica.failed();
      reader = readerOf(endpoint, res, deps, true);
      body = await endpoint.handle(contextOf(endpoint, req, res, reader, deps));
    }
    if (endpoint.tables.length > 0) {
      const age = await deps.dataAges.ageOf(endpoint.tables, reader.chosen()?.lagMs ?? 0);
      if (age !== null) res.set('X-Data-Age', age);
    }
    sendJson(req, res, endpoint.status ?? 200, body);
  };
}

/**
 * The answer as JSON. Not `res.json`: it parses and formats its own Content-Type again on every
 * answer to add the charset this one states. A GET whose answer carries an ETag (a member) keeps
 * Express's conditional answer: 304 when If-None-Match names it.
 */
function sendJson(req: Request, res: Response, status: number, body: unknown) {
  res.statusCode = status;
  if (res.getHeader('ETag') !== undefined && req.fresh) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const bytes = utf8(JSON.stringify(body));
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}

const encoder = new TextEncoder();
/** Bodies up to this many characters are encoded through one reused buffer (3 bytes each). */
const SCRATCH_CHARS = 256 * 1024;
const scratch = new Uint8Array(SCRATCH_CHARS * 3);

/**
 * `text` as UTF-8. A string written to the socket is encoded by node's slower path, and its
 * length is measured by another pass first: on a page of 50 members (23 kB) the two came to a
 * tenth of the gateway's time, encodeInto and one copy to a third of that
 * (docs/decisions/0005-fast-hot-path.md).
 */
function utf8(text: string): Buffer {
  if (text.length > SCRATCH_CHARS) return Buffer.from(text, 'utf8');
  const { written } = encoder.encodeInto(text, scratch);
  return Buffer.from(scratch.subarray(0, written));
}

/** The JSON body of an endpoint that declares one. */
const jsonBody = express.json({ limit: '100kb' });

/**
 * The declared endpoints as routes of `target` under `prefix` (`/api/v1`): the app itself, so a
 * request walks no second router. A route parses a body only where its endpoint declares one: a
 * GET walks no body parser (the API's reads are nearly all of its traffic, and every layer Express
 * walks costs each of them). Input no route can use is refused before the token is checked.
 */
export function mountEndpoints(
  target: Pick<Router, 'get' | 'post' | 'put' | 'delete'>,
  endpoints: readonly Endpoint[],
  deps: MountDeps,
  prefix = '',
): void {
  for (const endpoint of endpoints) {
    // The type requires a decision; this catches a declaration that slipped past it.
    if (endpoint.access === undefined) {
      throw new Error(`${endpoint.operationId} declares no access (scope, null or 'public')`);
    }
    const body = endpoint.body ? [jsonBody] : [];
    const guard = endpoint.access === 'public' ? [] : [deps.guard(endpoint.access)];
    const before = endpoint.before?.(deps.services) ?? [];
    const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
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
