// The standard OAuth 2.0 token endpoint and its security scheme, as the OpenAPI document shows
// them. Written apart from the specification's operations: /oauth/token speaks RFC 6749 (form
// body, RFC-shaped errors), not the specification's JSON envelope.
import { SCOPES } from '#api/scopes.js';

const oauthError = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'string',
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'unauthorized_client',
        'unsupported_grant_type',
        'invalid_scope',
        'slow_down',
      ],
    },
    error_description: { type: 'string' },
  },
};

const errorAnswer = (description: string) => ({
  description,
  content: { 'application/json': { schema: oauthError } },
});

const retryAfter = {
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};

const apiError = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** OAuth 2.0 client credentials (RFC 6749 §4.4), tokens from POST /oauth/token. */
export const oauthSecuritySchemes = {
  oauth2: {
    type: 'oauth2',
    description:
      'Client authentication by HTTP Basic (id and secret form-urlencoded, RFC 6749 §2.3.1) or by client_id and client_secret form fields.',
    flows: {
      clientCredentials: {
        tokenUrl: '/oauth/token',
        refreshUrl: '/oauth/token',
        scopes: Object.fromEntries(SCOPES.map((scope) => [scope, scope])),
      },
    },
  },
};

export const oauthTokenPath = {
  '/oauth/token': {
    post: {
      operationId: 'oauthToken',
      summary: 'OAuth 2.0 token endpoint (RFC 6749): client_credentials and refresh_token grants',
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              required: ['grant_type'],
              properties: {
                grant_type: { type: 'string', enum: ['client_credentials', 'refresh_token'] },
                client_id: { type: 'string' },
                client_secret: { type: 'string' },
                refresh_token: { type: 'string' },
                scope: {
                  type: 'string',
                  description: 'Space-delimited; all held scopes when absent.',
                },
              },
            },
          },
        },
      },
      responses: {
        200: {
          description: 'An RFC 6749 §5.1 token answer (Cache-Control: no-store)',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['access_token', 'token_type', 'expires_in'],
                properties: {
                  access_token: { type: 'string' },
                  token_type: { type: 'string', const: 'Bearer' },
                  expires_in: { type: 'integer' },
                  refresh_token: { type: 'string' },
                  scope: { type: 'string' },
                },
              },
            },
          },
        },
        400: errorAnswer('RFC 6749 §5.2 error'),
        401: errorAnswer('invalid_client; WWW-Authenticate: Basic when Basic was used'),
        413: errorAnswer('invalid_request: the body is over 100 kB'),
        429: {
          ...errorAnswer('Too many failed attempts (slow_down, Retry-After)'),
          headers: retryAfter,
        },
        // Failures of the gateway itself answer in the API's error envelope.
        500: apiError('SERVER_ERROR: unexpected failure'),
        503: {
          ...apiError('SERVER_ERROR: a dependency is unavailable; Retry-After gives the wait'),
          headers: retryAfter,
        },
      },
    },
  },
};
