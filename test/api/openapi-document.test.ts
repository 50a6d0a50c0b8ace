// The generated OpenAPI document itself: valid OpenAPI 3.1 by an independent validator, each
// operation's scope, filters with formats and enums, examples that match their schemas, and the
// contract check that every test's gateway call goes through.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CHANGE_TYPES } from '#api/changes/change-types.js';
import { fieldClasses } from '#api/data-classes.js';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import { openApiDocument } from '../../gateway/src/features/docs/openapi.js';
import { assertMatchesDocument, schemaErrors, type ObservedResponse } from '../support/contract.js';

interface Parameter {
  name: string;
  in: string;
  example?: unknown;
  schema: Record<string, unknown>;
}
type Operation = Record<string, unknown> & { parameters?: Parameter[] };
type Schema = Record<string, any>;

const document = openApiDocument(ENDPOINTS);
const components = document.components.schemas as Record<string, Schema>;
const operationOf = (method: string, path: string) =>
  (document.paths as Record<string, Record<string, Operation>>)[`/api/v1${path}`]![
    method.toLowerCase()
  ]!;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const componentName = (schema: Schema | undefined) =>
  (schema?.$ref ?? schema?.items?.$ref)?.replace('#/components/schemas/', '') as string | undefined;

describe('the generated OpenAPI document', () => {
  it('when checked by an OpenAPI 3.1 schema validator, then it is valid', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('when an operation needs a scope, then it states it as security and x-required-scope', () => {
    for (const endpoint of ENDPOINTS) {
      const operation = operationOf(endpoint.method, endpoint.path);
      if (endpoint.access === 'public') expect(operation.security).toEqual([]);
      else if (endpoint.access === null) {
        expect(operation.security).toContainEqual({ bearerAuth: [] });
      } else {
        expect(operation.security).toContainEqual({ bearerAuth: [endpoint.access] });
        expect(operation['x-required-scope']).toBe(endpoint.access);
      }
    }
  });

  it('when a filter takes dates, ids or a set of values, then its format and enum are documented', () => {
    const parameter = (method: string, path: string, name: string) =>
      operationOf(method, path).parameters!.find((p) => p.name === name)!;
    expect(parameter('GET', '/members', 'status').schema.enum).toEqual(['active', 'passive']);
    expect(parameter('GET', '/members', 'search').example).toBe('ayşe');
    expect(parameter('GET', '/financial/summary', 'start_date').schema.format).toBe('date');
    expect(parameter('GET', '/members/{id}', 'id')).toMatchObject({
      in: 'path',
      schema: { type: 'integer', maximum: 2_147_483_647 },
    });
    expect(parameter('GET', '/packages', 'is_active').schema.enum).toEqual(['true', 'false']);
    expect(parameter('GET', '/members', 'limit').schema).toMatchObject({ maximum: 200 });
  });

  it('when a resource has fields, then each names its data class as the declaration does', () => {
    const resources = Object.values(CHANGE_TYPES).map((type) => type.resource.schema);
    const named = (schema: z.ZodType) => z.globalRegistry.get(schema)!.id!;
    let personalFields = 0;
    for (const schema of resources) {
      const component = components[named(schema)]!;
      const declared = fieldClasses(schema);
      expect(Object.keys(component.properties as object).sort()).toEqual(
        Object.keys(declared).sort(),
      );
      for (const [field, property] of Object.entries(
        component.properties as Record<string, Schema>,
      )) {
        expect(property['x-data-class'], `${named(schema)}.${field}`).toBe(declared[field]);
        // A field a client may not hold is never required: it is absent from what reaches it.
        if (declared[field] !== 'basic') {
          personalFields++;
          expect(component.required as string[], `${named(schema)}.${field}`).not.toContain(field);
        }
      }
    }
    expect(components.Member!.properties.phone['x-data-class']).toBe('contact');
    expect(components.Member!.properties.qr_code['x-data-class']).toBe('access');
    expect(personalFields).toBeGreaterThanOrEqual(16);
  });

  it('when a declared operation answers data, then the data schema carries an example', () => {
    for (const endpoint of ENDPOINTS) {
      const success = operationOf(endpoint.method, endpoint.path).responses as Schema;
      const answer = componentName(
        success[String(endpoint.status ?? 200)].content['application/json'].schema,
      );
      const data = componentName(components[answer!]!.properties?.data);
      if (data) expect(components[data]!.examples, data).toHaveLength(1);
    }
  });

  it('when it describes webhooks, then it lists the disabled reasons set, counts cancelled events and says who may enable', () => {
    const subscription = components.WebhookSubscription!;
    expect(subscription.properties.disabled_reason.anyOf[0].enum).toEqual([
      'gone',
      'failing',
      'operator',
      'credentials-ended',
    ]);
    const events = components.WebhookDeliveryFigures!.properties.events;
    expect(events.required).toEqual(['published', 'delivered', 'failed', 'pending', 'cancelled']);
    expect(events.description).toBe('published = delivered + failed + pending + cancelled');
    expect(events.properties.cancelled.description).toMatch(/webhooks:manage.*scope.*branch/);
    expect(operationOf('GET', '/webhooks/{id}').description).toMatch(/cancelled/);
    expect(operationOf('POST', '/webhooks/{id}/replay').description).toMatch(/cancelled/);
    const enable = operationOf('POST', '/webhooks/{id}/enable');
    expect(enable.description).toMatch(/`operator`\) cannot: 403 `INSUFFICIENT_SCOPE`/);
    expect(Object.keys(enable.responses as object)).toContain('403');
  });

  it('when the document gives examples, then each matches its own schema', () => {
    for (const [name, schema] of Object.entries(components)) {
      for (const example of schema.examples ?? []) {
        expect(schemaErrors(ref(name), example), name).toEqual([]);
      }
    }
    for (const endpoint of ENDPOINTS) {
      for (const parameter of operationOf(endpoint.method, endpoint.path).parameters ?? []) {
        if (parameter.example === undefined) continue;
        expect(schemaErrors(parameter.schema, parameter.example), parameter.name).toEqual([]);
      }
    }
  });
});

describe('the contract check every test call goes through', () => {
  const json = new Headers({
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  const seen = (over: Partial<ObservedResponse>): ObservedResponse => ({
    method: 'GET',
    url: 'http://127.0.0.1:1/api/v1/members/7',
    status: 200,
    headers: json,
    body: null,
    ...over,
  });
  const member = components.Member!.examples[0] as Record<string, unknown>;
  const error = { success: false, error: 'NOT_FOUND', message: 'Yok.', request_id: 'r' };

  it('when a body breaks its schema, then the call fails naming the field', () => {
    const body = { success: true, data: { ...member, branch_name: 3 } };
    expect(() => assertMatchesDocument(seen({ body }))).toThrow(/\/data\/branch_name must be/);
    const good = { success: true, data: member };
    expect(() => assertMatchesDocument(seen({ body: good }))).not.toThrow();
  });

  it('when an error body is not the Error schema, then the call fails', () => {
    expect(() => assertMatchesDocument(seen({ status: 404, body: error }))).not.toThrow();
    const bad = { ...error, error: 'GONE' };
    expect(() => assertMatchesDocument(seen({ status: 404, body: bad }))).toThrow(/\/error must/);
  });

  it('when a status is not documented for the operation, then the call fails', () => {
    const body = { ...error, error: 'DUPLICATE' };
    expect(() => assertMatchesDocument(seen({ status: 409, body }))).toThrow(/not documented/);
  });

  it('when an answer may be cached, then the call fails', () => {
    const body = { success: true, data: member };
    const headers = new Headers(json);
    headers.delete('cache-control');
    expect(() => assertMatchesDocument(seen({ body, headers }))).toThrow(/Cache-Control/);
    headers.set('cache-control', 'private, max-age=60');
    expect(() => assertMatchesDocument(seen({ body, headers }))).toThrow(/Cache-Control/);
    expect(() => assertMatchesDocument(seen({ status: 404, body: error, headers }))).toThrow(
      /Cache-Control/,
    );
  });

  it('when a 429 or 503 has no Retry-After, then the call fails', () => {
    const body = { ...error, error: 'RATE_LIMIT_EXCEEDED' };
    expect(() => assertMatchesDocument(seen({ status: 429, body }))).toThrow(/Retry-After/);
    const headers = new Headers(json);
    headers.set('retry-after', '3');
    expect(() => assertMatchesDocument(seen({ status: 429, body, headers }))).not.toThrow();
  });

  it('when a path is not documented, then under /api/v1 only an Error passes and outside it nothing is checked', () => {
    const url = 'http://127.0.0.1:1/api/v1/no-such-thing';
    expect(() => assertMatchesDocument(seen({ url, status: 404, body: error }))).not.toThrow();
    const success = seen({ url, body: { success: true } });
    expect(() => assertMatchesDocument(success)).toThrow(/not documented/);
    const outside = seen({ url: 'http://127.0.0.1:1/healthz', body: 'anything' });
    expect(() => assertMatchesDocument(outside)).not.toThrow();
  });
});
