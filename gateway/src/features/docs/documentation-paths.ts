// The operations that are not endpoint declarations: the info endpoint and the documentation
// itself, described so that partners (and the contract tests) see every answer under /api/v1.
import type { z } from 'zod';
import { apiInfoResponse } from '../info/info.routes.js';

type Json = (schema: z.ZodType) => object;

export function documentationPaths(json: Json, errorResponse: (status: number) => object) {
  const serverError = { 500: errorResponse(500) };
  return {
    '/api/v1': {
      get: {
        operationId: 'getApiInfo',
        tags: ['info'],
        summary: 'What the API offers and the branch rule',
        description: 'No token needed. Every operation, in the groups of the specification.',
        security: [],
        responses: { 200: { description: 'ApiInfo', ...json(apiInfoResponse) }, ...serverError },
      },
    },
    '/api/v1/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        tags: ['info'],
        summary: 'This OpenAPI 3.1 document',
        description: 'No token needed.',
        security: [],
        responses: {
          200: {
            description: 'The OpenAPI document',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          ...serverError,
        },
      },
    },
    '/api/v1/docs': {
      get: {
        operationId: 'getDocumentation',
        tags: ['info'],
        summary: 'This document, rendered for reading',
        description: 'No token needed. Served with everything it needs, no third-party resources.',
        security: [],
        responses: {
          200: {
            description: 'HTML page',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
          ...serverError,
        },
      },
    },
  };
}
