// The OpenAPI 3.1 document, generated from the endpoint declarations and the same zod schemas
// that validate requests, so the code and the document cannot disagree. Components are every
// schema registered with `.meta({ id })`.
import { z } from 'zod';
import type { Endpoint } from '../../http/endpoint.js';
import { ERROR_CODES } from '../../http/errors.js';
import { documentationPaths } from './documentation-paths.js';
import { oauthSecuritySchemes, oauthTokenPath } from './oauth-openapi.js';

export const errorBodySchema = z
  .looseObject({
    success: z.literal(false),
    error: z.enum(ERROR_CODES),
    message: z.string().meta({ description: 'Human-readable, in Turkish.' }),
    retryAfter: z.int().nullable().optional(),
    request_id: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({
    id: 'Error',
    examples: [
      {
        success: false,
        error: 'VALIDATION_ERROR',
        message: 'İstek parametreleri geçersiz.',
        request_id: '0b8f2c1e-5d7a-4e3b-9c61-2f4a8d9e7b10',
        details: [{ field: 'limit', message: 'En fazla 200 olabilir.' }],
      },
    ],
  });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR: a parameter or the body is invalid (details name each field)',
  401: 'INVALID_TOKEN: the token is missing, invalid, expired or revoked',
  403: 'INSUFFICIENT_SCOPE: the client lacks the scope, or names another branch',
  404: 'NOT_FOUND: no such object, or one of another branch',
  409: 'DUPLICATE: a record with the same data already exists',
  412: 'PRECONDITION_FAILED: If-Match does not match the current version',
  410: 'CURSOR_EXPIRED: the cursor is older than the change feed keeps deletes; start again without one',
  413: 'VALIDATION_ERROR: the body is over 100 kB',
  429: 'RATE_LIMIT_EXCEEDED: a limit is exhausted; retryAfter and Retry-After give the wait',
  500: 'SERVER_ERROR: unexpected failure',
  503: 'SERVER_ERROR: a dependency is unavailable; Retry-After gives the wait',
};

function withoutDialect(schema: Record<string, unknown>) {
  delete schema.$schema;
  return schema;
}

const inputSchema = (field: z.ZodType) =>
  withoutDialect(z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }));

function ref(schema: z.ZodType) {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('only registered schemas can be referenced');
  return { $ref: `#/components/schemas/${id}` };
}
const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema: ref(schema) } } });

function parameters(endpoint: Endpoint) {
  const from = (shape: z.ZodObject | undefined, where: 'path' | 'query') =>
    Object.entries((shape?.shape ?? {}) as Record<string, z.ZodType>).map(([name, field]) => {
      const schema = inputSchema(field);
      const { description, examples } = schema as { description?: string; examples?: unknown[] };
      delete schema.description;
      return {
        name,
        in: where,
        required: where === 'path' || !field.safeParse(undefined).success,
        ...(description ? { description } : {}),
        // Renderers show a parameter's own example; the schema keeps its examples too.
        ...(examples?.length ? { example: examples[0] } : {}),
        schema,
      };
    });
  return [
    ...from(endpoint.params as z.ZodObject | undefined, 'path'),
    ...from(endpoint.query as z.ZodObject | undefined, 'query'),
  ];
}

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};

const NO_STORE = {
  'Cache-Control': {
    description: 'The answer carries partner data: no browser or shared cache may keep it',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
};

function errorResponse(status: number) {
  return {
    description: ERROR_DESCRIPTIONS[status] ?? `Error ${status}`,
    headers: { ...NO_STORE, ...(status === 429 || status === 503 ? RETRY_AFTER : {}) },
    ...json(errorBodySchema),
  };
}

/** The statuses an endpoint can answer besides success, from what it declares. */
function errorStatuses(endpoint: Endpoint): number[] {
  const statuses = new Set<number>([500, 503, ...(endpoint.errors ?? [])]);
  if (endpoint.params || endpoint.query || endpoint.body) statuses.add(400);
  if (endpoint.body) statuses.add(413);
  if (endpoint.access !== 'public') [401, 403, 429].forEach((s) => statuses.add(s));
  if (endpoint.path.includes('{')) statuses.add(404);
  return [...statuses].sort();
}

function operation(endpoint: Endpoint) {
  const scope = endpoint.access;
  const scopeText =
    scope === 'public'
      ? 'No token needed.'
      : scope === null
        ? 'Any valid token, no scope.'
        : `Scope \`${scope}\`.`;
  return {
    operationId: endpoint.operationId,
    tags: [endpoint.group],
    summary: endpoint.summary,
    description: [scopeText, endpoint.description].filter(Boolean).join(' '),
    security: scope === 'public' ? [] : [{ bearerAuth: scope === null ? [] : [scope] }],
    ...(scope === 'public' || scope === null ? {} : { 'x-required-scope': scope }),
    parameters: parameters(endpoint),
    ...(endpoint.body
      ? { requestBody: { required: !endpoint.bodyOptional, ...json(endpoint.body as z.ZodType) } }
      : {}),
    responses: {
      [String(endpoint.status ?? 200)]: {
        description: endpoint.summary,
        headers: {
          ...NO_STORE,
          ...(endpoint.tables.length > 0
            ? {
                'X-Data-Age': {
                  description:
                    'Seconds since the least recently synced table behind the answer was brought up to date, plus how far behind the primary the read replica that answered is, when one did',
                  schema: { type: 'integer', minimum: 0 },
                },
              }
            : {}),
        },
        ...json(endpoint.response as z.ZodType),
      },
      ...Object.fromEntries(
        errorStatuses(endpoint).map((status) => [String(status), errorResponse(status)]),
      ),
    },
  };
}

function paths(endpoints: readonly Endpoint[]) {
  const out: Record<string, Record<string, unknown>> = documentationPaths(json, errorResponse);
  for (const endpoint of endpoints) {
    const path = `/api/v1${endpoint.path}`;
    (out[path] ??= {})[endpoint.method.toLowerCase()] = operation(endpoint);
  }
  return out;
}

export function openApiDocument(endpoints: readonly Endpoint[]) {
  const documentPaths = paths(endpoints);
  // Registered schemas become components; references between them use the same URI form.
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
  }) as { schemas: Record<string, Record<string, unknown>> };
  // A component is named by its key; JSON Schema's own $schema/$id would only confuse tools.
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Dashboard External API',
      version: '1.0.0',
      description:
        'Partner API of the club management dashboard. Lists take page (default 1) and limit (default 50, max 200); ' +
        'out-of-range values are 400 VALIDATION_ERROR, never clamped. Lists are sorted by id ascending, time series ' +
        'newest first. Dates are Istanbul calendar days (YYYY-MM-DD), inclusive. A client bound to a branch sees only ' +
        "that branch's data: naming another branch is 403, another branch's object is 404. Protected responses carry " +
        'X-RateLimit-{Limit,Remaining}-{Minute,Hour,Day}; read responses carry X-Data-Age. ' +
        'Every answer carrying partner data, errors included, is Cache-Control: no-store.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Access token from POST /api/v1/auth/token. Each operation names the scope it needs.',
        },
        ...oauthSecuritySchemes,
      },
      schemas,
    },
    paths: { ...documentPaths, ...oauthTokenPath },
  };
}
