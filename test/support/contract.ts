// The contract check behind every gateway call of the tests: the answer (status, body, documented
// headers) must be what the generated OpenAPI document says, so the code and the document cannot
// drift apart. The document is the same for every gateway, so it is compiled once per process.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import { openApiDocument } from '../../gateway/src/features/docs/openapi.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

const BASE = 'https://contract.test/openapi.json';
const COMPONENTS = '#/components/schemas/';

interface Header {
  required?: boolean;
  schema: Record<string, unknown>;
}
interface ResponseObject {
  headers?: Record<string, Header>;
  content?: Record<string, { schema: Record<string, unknown> }>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
interface Route {
  template: string;
  pattern: RegExp;
  operations: Record<string, Operation>;
}

/** Component references made absolute, so a schema compiles on its own against BASE. */
function absoluteRefs<T>(schema: T): T {
  return JSON.parse(
    JSON.stringify(schema).replaceAll(`"$ref":"${COMPONENTS}`, `"$ref":"${BASE}#/$defs/`),
  ) as T;
}

function compileDocument() {
  const document = openApiDocument(ENDPOINTS) as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  // OpenAPI's own schema keywords, which carry documentation only, and the API's extension naming
  // each field's class of personal data (api/data-classes.ts).
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs', 'x-data-class']);
  ajv.addSchema({ $id: BASE, $defs: absoluteRefs(document.components.schemas) });
  const routes: Route[] = Object.entries(document.paths)
    .map(([template, operations]) => ({
      template,
      pattern: new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`,
      ),
      operations,
    }))
    // A literal path wins over a template that also matches it.
    .sort(
      (a, b) => (a.template.match(/\{/g) ?? []).length - (b.template.match(/\{/g) ?? []).length,
    );
  const compiled = new Map<object, ValidateFunction>();
  const validatorOf = (schema: Record<string, unknown>) => {
    let validate = compiled.get(schema);
    if (!validate) compiled.set(schema, (validate = ajv.compile(absoluteRefs(schema))));
    return validate;
  };
  const errorSchema = { $ref: `${COMPONENTS}Error` };
  return { routes, validatorOf, errorSchema };
}

let contract: ReturnType<typeof compileDocument> | undefined;
const compiledContract = () => (contract ??= compileDocument());

export interface ObservedResponse {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  body: unknown;
}

class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

function check(condition: boolean, seen: ObservedResponse, problem: string): asserts condition {
  if (condition) return;
  const body = JSON.stringify(seen.body)?.slice(0, 500);
  throw new ContractViolation(
    `${seen.method} ${seen.url} answered ${seen.status} against the OpenAPI document: ${problem}\nbody: ${body}`,
  );
}

/**
 * What is wrong with `value` against a schema of the document (its $refs resolved); [] if nothing.
 */
export function schemaErrors(schema: Record<string, unknown>, value: unknown): string[] {
  const validate = compiledContract().validatorOf(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

function checkSchema(schema: Record<string, unknown>, value: unknown, seen: ObservedResponse) {
  const errors = schemaErrors(schema, value);
  check(errors.length === 0, seen, `the body does not match its schema: ${errors.join('; ')}`);
}

function checkHeaders(documented: Record<string, Header>, seen: ObservedResponse) {
  for (const [name, header] of Object.entries(documented)) {
    const value = seen.headers.get(name);
    check(value !== null || !header.required, seen, `the required header ${name} is missing`);
    if (value === null) continue;
    const numeric = ['integer', 'number'].includes(header.schema.type as string);
    const parsed = numeric && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    const validate = compiledContract().validatorOf(header.schema);
    check(validate(parsed), seen, `header ${name}: ${value} does not match its schema`);
  }
}

function checkResponse(documented: ResponseObject, seen: ObservedResponse) {
  checkHeaders(documented.headers ?? {}, seen);
  const contentType = seen.headers.get('content-type')?.split(';')[0]?.trim() ?? '';
  const media = documented.content?.[contentType];
  const described = Object.keys(documented.content ?? {}).join(', ') || 'no body';
  check(
    media !== undefined,
    seen,
    `content type "${contentType}" is not documented (${described})`,
  );
  if (contentType === 'application/json') checkSchema(media.schema, seen.body, seen);
}

/**
 * Throws when the answer is not the documented one. Paths outside /api/v1 that the document does
 * not describe are not checked; an undocumented path or method under /api/v1 may only be an error.
 */
export function assertMatchesDocument(seen: ObservedResponse) {
  const { routes, errorSchema } = compiledContract();
  const path = new URL(seen.url).pathname;
  const route = routes.find((r) => r.pattern.test(path));
  const operation = route?.operations[seen.method.toLowerCase()];
  if (!operation) {
    if (!route && !path.startsWith('/api/v1')) return;
    check(seen.status >= 400, seen, 'the path and method are not documented');
    check(
      seen.headers.get('content-type')?.startsWith('application/json') ?? false,
      seen,
      'not JSON',
    );
    checkSchema(errorSchema, seen.body, seen);
    return;
  }
  const documented = operation.responses[String(seen.status)] ?? operation.responses.default;
  check(
    documented !== undefined,
    seen,
    `status ${seen.status} is not documented for ${route?.template ?? path}`,
  );
  checkResponse(documented, seen);
  if (seen.status === 429 || seen.status === 503) {
    check(seen.headers.has('retry-after'), seen, 'Retry-After is missing');
  }
}
