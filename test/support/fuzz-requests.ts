// Generated malformed requests for every operation of an OpenAPI document (fast-check
// arbitraries): hostile path parameters, query values, bodies and headers. The document's paths
// are walked, so an operation added to the document is fuzzed without touching the test.
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Operation {
  operationId: string;
  method: string;
  /** The document's path, `{id}` for a parameter. */
  path: string;
  /** Whether it needs a token (its security requirement is not empty). */
  needsToken: boolean;
  queryNames: string[];
  bodyFields: string[];
  hasBody: boolean;
}

type Document = {
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, any> };
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operationsOf(document: Document): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method];
      const content = operation.requestBody?.content ?? {};
      const schema = (Object.values(content)[0] as { schema?: any } | undefined)?.schema ?? {};
      const resolved = schema.$ref
        ? document.components?.schemas?.[String(schema.$ref).split('/').pop() ?? '']
        : schema;
      return {
        operationId: String(operation.operationId),
        method: method.toUpperCase(),
        path,
        needsToken: (operation.security ?? []).length > 0,
        queryNames: (operation.parameters ?? [])
          .filter((p: { in: string }) => p.in === 'query')
          .map((p: { name: string }) => p.name),
        bodyFields: Object.keys(resolved?.properties ?? {}),
        hasBody: Boolean(operation.requestBody),
      };
    }),
  );
}

/** Values chosen to break parsers, coercions, LIKE patterns and SQL. */
const NASTY = [
  '',
  ' ',
  '%',
  '_',
  '\\',
  '\u0000',
  "' OR 1=1 --",
  '"; DROP TABLE members; --',
  '../..',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1.5',
  '1e309',
  '99999999999999999999',
  '2147483648',
  '[]',
  '{}',
  'null',
  'true',
  '__proto__',
  'constructor',
  '𝕏𝕐',
  'İıŞş',
  '\u202e',
  'a'.repeat(5000),
];
/** Raw percent-escapes, sent as they are (no further encoding). */
const RAW_ESCAPES = ['%FF', '%ZZ', '%00', '%', '%C0%AF', '%E2%82', '%2e%2e%2f', '%25', '%0A'];

const text = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
);

function encoded(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return 'lone%ED%A0%80surrogate';
  }
}

const urlPart = fc.oneof(
  { weight: 3, arbitrary: text.map(encoded) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_ESCAPES) },
);

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

function queryOf(names: string[]) {
  const name = fc.oneof(fc.constantFrom(...(names.length > 0 ? names : ['q'])), urlPart);
  const pair = fc.tuple(name, urlPart).map(([k, v]) => `${k}=${v}`);
  return fc
    .array(pair, { maxLength: 5 })
    .map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

function bodyOf(fields: string[]) {
  const fieldValue = fc.oneof(text, fc.jsonValue({ maxDepth: 2 }));
  const shaped = fc
    .dictionary(fc.oneof(fc.constantFrom(...(fields.length ? fields : ['x'])), text), fieldValue, {
      maxKeys: 5,
    })
    .map((object) => JSON.stringify(object));
  const formPairs = fc
    .array(fc.tuple(fc.constantFrom(...(fields.length ? fields : ['x'])), urlPart), {
      maxLength: 6,
    })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
  return fc.oneof(
    { weight: 4, arbitrary: shaped.map((body) => ({ type: 'application/json', body })) },
    {
      weight: 2,
      arbitrary: formPairs.map((body) => ({ type: 'application/x-www-form-urlencoded', body })),
    },
    {
      weight: 1,
      arbitrary: fc
        .jsonValue({ maxDepth: 4 })
        .map((v) => ({ type: 'application/json', body: JSON.stringify(v) ?? 'null' })),
    },
    {
      weight: 1,
      arbitrary: fc.string({ maxLength: 80 }).map((body) => ({ type: 'application/json', body })),
    },
    { weight: 1, arbitrary: printable.map((type) => ({ type, body: '{"a":1}' })) },
    {
      weight: 1,
      arbitrary: fc.constant({
        type: 'application/json',
        body: `${'['.repeat(5000)}${']'.repeat(5000)}`,
      }),
    },
    {
      weight: 1,
      arbitrary: shaped.map((body) => ({ type: 'application/json', body, encoding: 'gzip' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(shaped, fc.constantFrom('deflate', 'br', 'x-unknown'))
        .map(([body, encoding]) => ({ type: 'application/json', body: gzipSync(body), encoding })),
    },
  );
}

function authorizationOf(validToken: string) {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(`Bearer ${validToken}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: printable.map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: printable.map((t) => `Basic ${Buffer.from(t).toString('base64')}`) },
    { weight: 1, arbitrary: printable },
  );
}

export function requestsFor(operation: Operation, validToken: string) {
  const path = operation.path
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? urlPart : fc.constant(part)));
  return fc
    .record({
      path: fc.tuple(...path).map((parts) => parts.join('')),
      query: queryOf(operation.queryNames),
      authorization: authorizationOf(validToken),
      requestId: fc.option(printable, { nil: undefined }),
      forwardedFor: fc.option(printable, { nil: undefined }),
      body: operation.hasBody
        ? fc.option(bodyOf(operation.bodyFields), { nil: undefined })
        : fc.constant(undefined),
    })
    .map((r): FuzzRequest => {
      const headers: Record<string, string> = {};
      if (r.authorization !== undefined) headers.authorization = r.authorization;
      if (r.requestId !== undefined) headers['x-request-id'] = r.requestId;
      if (r.forwardedFor !== undefined) headers['x-forwarded-for'] = r.forwardedFor;
      if (r.body) {
        headers['content-type'] = r.body.type;
        if ('encoding' in r.body && r.body.encoding) headers['content-encoding'] = r.body.encoding;
      }
      return { method: operation.method, path: r.path + r.query, headers, body: r.body?.body };
    });
}
