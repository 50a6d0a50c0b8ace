// Every operation of the served OpenAPI document driven with generated malformed input: no 5xx,
// no answer slower than 2 s, no stack trace or SQL in a body, and every operation reached (its
// route answered, past the token check where it needs one, as the gateway's access log tells).
// Requests run concurrently in small batches against one gateway; a failure names the seed that
// reproduces it.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '#api/scopes.js';
import { expressPath } from '../../gateway/src/http/endpoint.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  operationsOf,
  requestsFor,
  type FuzzRequest,
  type Operation,
} from '../support/fuzz-requests.js';
import {
  createTestClient,
  getJson,
  issueTokenPair,
  startGateway,
  type RunningGateway,
  type TestClient,
  type TokenPair,
} from '../support/gateway.js';
import { captureLogs } from '../support/log-capture.js';

const TOTAL_REQUESTS = 5_200;
const BATCH = 16;
const SLOW_MS = 2_000;
const LEAKS = [
  /\bat [\w.<>]+ \(?[^)\s]*:\d+:\d+\)?/, // a stack frame
  // A statement within one JSON string: the document's own words ("delete" as an operation of
  // the change feed, "from" in a description) are not one.
  /\b(SELECT|INSERT|UPDATE|DELETE)\b[^"]{0,200}?\b(FROM|INTO|SET|WHERE)\b/i,
  /prisma|postgres|mysql|mariadb|ioredis|ECONNREFUSED|syntax error|node_modules/i,
];

let env: TestEnvironment;
let gateway: RunningGateway;
let client: TestClient;
let pair: TokenPair;
/** Revoking ends the token a request carries: revokeToken's requests carry this one's. */
let revoker: TestClient;
let revokerPair: TokenPair;
const capture = captureLogs('info');

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(
    env,
    {
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_HOUR: '1000000',
      RATE_LIMIT_PER_DAY: '1000000',
      AUTH_FAILED_ATTEMPTS_PER_MINUTE: '1000000',
      TRUST_PROXY: 'loopback',
    },
    { logger: capture.logger },
  );
  client = await createTestClient(gateway.db, { scopes: [...SCOPES] });
  pair = await issueTokenPair(gateway, client);
  revoker = await createTestClient(gateway.db, { scopes: [...SCOPES] });
  revokerPair = await issueTokenPair(gateway, revoker);
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

interface Finding {
  request: string;
  status: number;
  ms: number;
  excerpt: string;
}

async function send(request: FuzzRequest): Promise<Finding | null> {
  const started = performance.now();
  const label = `${request.method} ${request.path.slice(0, 200)}`;
  try {
    const response = await fetch(`${gateway.url}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(10_000),
    });
    const body = await response.text();
    const ms = performance.now() - started;
    const leak = LEAKS.find((pattern) => pattern.test(body));
    if (response.status >= 500 || ms > SLOW_MS || leak) {
      return { request: label, status: response.status, ms, excerpt: body.slice(0, 300) };
    }
    return null;
  } catch (error) {
    return { request: label, status: 0, ms: performance.now() - started, excerpt: String(error) };
  }
}

/**
 * Whether a request reached the operation: the access log's line of it names the operation's
 * route and method, not another route's or "unmatched", and, for an operation that needs a token,
 * the client whose token was accepted (so the handler, not the token check, answered).
 */
function reached(operation: Operation, lines: Record<string, unknown>[]): boolean {
  const route = expressPath(operation.path);
  return lines.some(
    (line) =>
      line.route === route &&
      line.method === operation.method &&
      line.status !== 429 &&
      (!operation.needsToken || line.client_id !== undefined),
  );
}

describe('fuzzing every documented operation', () => {
  it('when thousands of malformed requests arrive, then none is a 5xx, slow, or leaks internals, and every operation is reached', async () => {
    const document = (await getJson(`${gateway.url}/api/v1/openapi.json`)).body as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const operations = operationsOf(document);
    const declared = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(declared.sort());
    const seed = Date.now() % 2_147_483_647;
    const perOperation = Math.ceil(TOTAL_REQUESTS / operations.length);
    const requests = operations.flatMap((operation) => {
      const { access_token } = operation.operationId === 'revokeToken' ? revokerPair : pair;
      return fc.sample(requestsFor(operation, access_token), { numRuns: perOperation, seed });
    });
    const findings: Finding[] = [];
    for (let i = 0; i < requests.length; i += BATCH) {
      const answers = await Promise.all(requests.slice(i, i + BATCH).map(send));
      findings.push(...answers.filter((finding) => finding !== null));
    }
    expect(requests.length).toBeGreaterThanOrEqual(5_000);
    // The log line of each finding tells why it failed (the body rightly does not).
    const explained = findings.map((finding) => {
      const id = /"request_id":"([^"]+)"/.exec(finding.excerpt)?.[1] ?? '';
      const err = capture.linesOf(id)[0]?.err as { message?: string } | undefined;
      return { ...finding, logged: err?.message?.slice(0, 300) };
    });
    expect(explained, `seed ${seed}`).toEqual([]);
    const lines = capture.lines();
    const missed = operations.filter((operation) => !reached(operation, lines));
    expect(
      missed.map((o) => `${o.operationId} (${o.method} ${o.path})`),
      `never reached, seed ${seed}`,
    ).toEqual([]);
    capture.expectNoCredentials(
      [[client, pair] as const, [revoker, revokerPair] as const].flatMap(([c, p]) => [
        c.client_secret,
        p.access_token,
        p.refresh_token,
      ]),
    );
  }, 240_000);
});
