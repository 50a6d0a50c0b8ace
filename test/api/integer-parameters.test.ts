// Every path id and every integer query filter of every declared endpoint takes decimal digits
// alone (gateway/src/http/filters.ts, decimalInteger): the other spellings Number() reads as a
// number (`1e1` as 10, `0x10` as 16, ` 1` and `+1` as 1) are 400 VALIDATION_ERROR naming the
// parameter, in the API's error body, never a 500 or a silently different id. The parameters are
// walked from the endpoint declarations (gateway/src/endpoints.ts), so a new endpoint or filter is
// covered without a line here.
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { SCOPES } from '#api/scopes.js';
import { openApiDocument } from '../../gateway/src/features/docs/openapi.js';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import { expressPath, type Endpoint } from '../../gateway/src/http/endpoint.js';
import { clientTest } from '../support/fixtures.js';
import { bearer, getJson, type RunningGateway } from '../support/gateway.js';
import { NO_RATE_LIMIT } from '../support/read-fixture.js';

interface IntegerParameter {
  endpoint: Endpoint;
  name: string;
  in: 'path' | 'query';
  /** Whether the parameter's schema refuses negative numbers, so `-1` must be a 400 as well. */
  nonNegative: boolean;
}

/**
 * The parameters of a declaration that take a whole number: those whose own schema turns the
 * digits `7` into the number 7, whatever the schema is built from.
 */
function integerParameters(endpoint: Endpoint): IntegerParameter[] {
  const of = (shape: z.ZodObject | undefined, where: 'path' | 'query') =>
    Object.entries((shape?.shape ?? {}) as Record<string, z.ZodType>).flatMap(([name, field]) => {
      const parsed = field.safeParse('7');
      if (!parsed.success || typeof parsed.data !== 'number') return [];
      const schema = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as {
        minimum?: number;
        exclusiveMinimum?: number;
      };
      const nonNegative =
        (schema.minimum ?? -Infinity) >= 0 || (schema.exclusiveMinimum ?? -Infinity) >= -1;
      return [{ endpoint, name, in: where, nonNegative }];
    });
  return [
    ...of(endpoint.params as z.ZodObject | undefined, 'path'),
    ...of(endpoint.query as z.ZodObject | undefined, 'query'),
  ];
}

const PARAMETERS = ENDPOINTS.flatMap(integerParameters);

/** Number() reads each as a number; none is decimal digits alone. */
const NOT_DECIMAL = ['1e1', '0x10', '1.0', ' 1', '+1', '1 ', '0b1', '0o7', 'Infinity', '１'];

/**
 * A body the endpoint accepts, for declarations that take one beside an integer parameter: the
 * body is parsed before the path, so a bad body would hide what the path gets.
 */
const VALID_BODIES: Record<string, unknown> = {
  updateMember: { surname: null },
  replayWebhook: { since: '2026-11-25T00:00:00Z' },
  updateWebhook: { description: 'Turnike' },
};

const label = (p: IntegerParameter) => `${p.endpoint.method} ${p.endpoint.path} ${p.in} ${p.name}`;

const CASES = PARAMETERS.flatMap((p) =>
  [...NOT_DECIMAL, ...(p.nonNegative ? ['-1'] : []), ...(p.in === 'query' ? [''] : [])].map(
    (value): [string, string, IntegerParameter] => [label(p), JSON.stringify(value), p],
  ),
);

const it = clientTest(NO_RATE_LIMIT, { scopes: [...SCOPES] });

// Read by the helpers below and by it.each's tests, which get no fixtures of their own.
let gateway: RunningGateway;
let token: string;

it.beforeAll(({ gateway: started, token: issued }) => {
  gateway = started;
  token = issued;
});

/** The endpoint called with `value` for the parameter and `1` for every other path parameter. */
function call(p: IntegerParameter, value: string) {
  const { endpoint } = p;
  const filled = expressPath(endpoint.path).replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(p.in === 'path' && name === p.name ? value : '1'),
  );
  const query = p.in === 'query' ? `?${p.name}=${encodeURIComponent(value)}` : '';
  const body = VALID_BODIES[endpoint.operationId];
  const init = bearer(token);
  return getJson(`${gateway.url}/api/v1${filled}${query}`, {
    method: endpoint.method,
    headers: { ...init.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

describe('the integer parameters found in the endpoint declarations', () => {
  it('when the declarations are walked, then every id in a path and every id filter, page and limit is found', () => {
    const found = (name: string, where: 'path' | 'query') =>
      PARAMETERS.filter((p) => p.name === name && p.in === where).length;
    const templatedPaths = ENDPOINTS.filter((e) => e.path.includes('{id}')).length;
    expect(found('id', 'path')).toBe(templatedPaths);
    expect(templatedPaths).toBeGreaterThanOrEqual(8);
    expect(found('branch_id', 'query')).toBeGreaterThanOrEqual(8);
    expect(found('member_id', 'query')).toBeGreaterThanOrEqual(4);
    expect(found('category_id', 'query')).toBe(1);
    expect(found('page', 'query')).toBeGreaterThanOrEqual(10);
    // Every paged list takes both; the change feed takes a limit and a cursor.
    expect(found('limit', 'query')).toBe(found('page', 'query') + 1);
  });

  it('when a declaration takes a body beside an integer parameter, then the test sends a body it accepts', () => {
    for (const endpoint of new Set(PARAMETERS.map((p) => p.endpoint))) {
      if (!endpoint.body) continue;
      const body = VALID_BODIES[endpoint.operationId];
      expect(body, endpoint.operationId).toBeDefined();
      expect((endpoint.body as z.ZodType).safeParse(body).success, endpoint.operationId).toBe(true);
    }
  });

  it('when the OpenAPI document describes them, then each is an integer with its bounds', () => {
    const document = openApiDocument(ENDPOINTS) as unknown as {
      paths: Record<string, Record<string, { parameters: Record<string, any>[] }>>;
    };
    for (const p of PARAMETERS) {
      const operation =
        document.paths[`/api/v1${p.endpoint.path}`]![p.endpoint.method.toLowerCase()]!;
      const documented = operation.parameters.find((d) => d.name === p.name && d.in === p.in);
      expect(documented?.schema, label(p)).toMatchObject({
        type: 'integer',
        maximum: expect.any(Number),
      });
      const { minimum, exclusiveMinimum } = documented!.schema as Record<string, unknown>;
      expect(minimum ?? exclusiveMinimum, label(p)).toEqual(expect.any(Number));
    }
  });
});

describe('integer parameters given anything but decimal digits', () => {
  it.each(CASES)(
    'when %s is %s, then it answers 400 VALIDATION_ERROR naming it',
    async (_label, json, p) => {
      const { status, body } = await call(p, JSON.parse(json) as string);
      expect(status).toBe(400);
      expect(body).toMatchObject({
        success: false,
        error: 'VALIDATION_ERROR',
        message: expect.any(String),
        request_id: expect.any(String),
      });
      expect(body.details).toEqual(
        expect.arrayContaining([{ field: p.name, message: expect.any(String) }]),
      );
    },
  );

  it.each(PARAMETERS.map((p): [string, IntegerParameter] => [label(p), p]))(
    'when %s is decimal digits, with or without leading zeros, then the parameter is accepted',
    async (_label, p) => {
      for (const value of ['1', '001']) {
        const { status, body } = await call(p, value);
        expect(status, `${value}: ${JSON.stringify(body)}`).toBeLessThan(500);
        const named = ((body?.details ?? []) as { field: string }[]).map((d) => d.field);
        expect(named, value).not.toContain(p.name);
      }
    },
  );

  it.each(
    PARAMETERS.filter((p) => p.in === 'path').map((p): [string, IntegerParameter] => [label(p), p]),
  )(
    'when %s is beyond the int columns, then it answers 400, not a database error',
    async (_label, p) => {
      for (const value of ['2147483648', '9'.repeat(400)]) {
        const { status, body } = await call(p, value);
        expect(status, value).toBe(400);
        expect(body).toMatchObject({ success: false, error: 'VALIDATION_ERROR' });
      }
    },
  );
});
