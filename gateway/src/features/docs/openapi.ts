// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests, so the
// two cannot disagree. Components are every schema registered with `.meta({ id })`.
import { z } from 'zod';
import { ERROR_CODES } from '../../http/errors.js';
import {
  refreshRequestSchema,
  revokeRequestSchema,
  tokenDataSchema,
  tokenRequestSchema,
} from '../auth/auth.schemas.js';
import {
  listMembersQuery,
  memberListResponse,
  memberResponse,
} from '../members/members.schemas.js';
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
  .meta({ id: 'Error' });

const tokenResponse = z
  .object({ success: z.boolean(), data: tokenDataSchema })
  .meta({ id: 'TokenResponse' });
const messageResponse = z
  .object({ success: z.boolean(), message: z.string() })
  .meta({ id: 'MessageResponse' });

const ref = (schema: z.ZodType) => {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('only registered schemas can be referenced');
  return { $ref: `#/components/schemas/${id}` };
};
const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema: ref(schema) } } });
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: `Error ${status}`, ...json(errorBodySchema) },
    ]),
  );
const queryParameters = (schema: z.ZodObject) =>
  Object.entries(schema.shape).map(([name, field]) => ({
    name,
    in: 'query',
    required: false,
    schema: withoutDialect(
      z.toJSONSchema(field as z.ZodType, { io: 'input', unrepresentable: 'any' }),
    ),
  }));
function withoutDialect(schema: Record<string, unknown>) {
  delete schema.$schema;
  return schema;
}
const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};
const bearer = [{ bearerAuth: [] }];

const paths = {
  '/api/v1': {
    get: {
      operationId: 'getApiInfo',
      summary: 'What the API offers and the branch rule',
      security: [],
      responses: { 200: { description: 'ApiInfo' } },
    },
  },
  '/api/v1/auth/token': {
    post: {
      operationId: 'createToken',
      security: [],
      requestBody: { required: true, ...json(tokenRequestSchema) },
      responses: {
        200: { description: 'A new token pair', ...json(tokenResponse) },
        ...errors(400, 401, 403, 429, 500),
      },
    },
  },
  '/api/v1/auth/refresh': {
    post: {
      operationId: 'refreshToken',
      security: [],
      requestBody: { required: true, ...json(refreshRequestSchema) },
      responses: {
        200: { description: 'A new pair; the old one is revoked', ...json(tokenResponse) },
        ...errors(400, 401, 403, 429, 500),
      },
    },
  },
  '/api/v1/auth/revoke': {
    post: {
      operationId: 'revokeToken',
      security: bearer,
      requestBody: { required: false, ...json(revokeRequestSchema) },
      responses: {
        200: { description: 'Revoked', ...json(messageResponse) },
        ...errors(401, 429, 500),
      },
    },
  },
  '/api/v1/members': {
    get: {
      operationId: 'listMembers',
      security: bearer,
      description: 'Scope members:list. Sorted by id ascending.',
      parameters: queryParameters(listMembersQuery),
      responses: {
        200: { description: 'A page of members', ...json(memberListResponse) },
        ...errors(400, 401, 403, 429, 500),
      },
    },
  },
  '/api/v1/members/{id}': {
    get: {
      operationId: 'getMember',
      security: bearer,
      description: "Scope members:read. Another branch's member answers 404 to a bound client.",
      parameters: [idParameter],
      responses: {
        200: { description: 'One member', ...json(memberResponse) },
        ...errors(400, 401, 403, 404, 429, 500),
      },
    },
  },
};

export function openApiDocument() {
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
        'Partner API of the club management dashboard. Pagination: page (default 1), limit (default 50, max 200); ' +
        'out-of-range values are 400 VALIDATION_ERROR, never clamped. Protected responses carry X-RateLimit-* headers.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' }, ...oauthSecuritySchemes },
      schemas,
    },
    paths: { ...paths, ...oauthTokenPath },
  };
}
