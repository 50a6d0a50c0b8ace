// Runs the real gateway application on port 0 against a test environment, and obtains tokens
// from its real token endpoint.
import type { DataClass } from '#api/data-classes.js';
import type { Club } from '#api/sandbox.js';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { inject } from 'vitest';
import type { ReadModelClient } from '#common/databases.js';
import type { Logger } from '#common/logger.js';
import type { GatewayMetrics } from '../../gateway/src/http/metrics.js';
import { createGatewayServer } from '../../gateway/src/http/server.js';
import { createGateway, type Gateway } from '../../gateway/src/start.js';
import type { Scope } from '#api/scopes.js';
import { createClient } from '../../gateway/src/features/clients/clients.repository.js';
import { createClientSecrets } from '../../gateway/src/trust/client-secrets.js';
import { assertMatchesDocument } from './contract.js';
import { TEST_SECRETS_KEY, type TestEnvironment } from './environment.js';
import { noteCredentials, runLogger } from './run-logs.js';

/**
 * A gateway served on a port of its own, with the parts a test reads: its metrics (what the
 * listener would serve) and its usage counts (flush() sends them to Redis now).
 */
export interface RunningGateway extends Pick<
  Gateway,
  'db' | 'redis' | 'app' | 'metrics' | 'usage'
> {
  url: string;
  close(): Promise<void>;
}

export async function startGateway(
  env: TestEnvironment,
  overrides: Record<string, string> = {},
  options: { logger?: Logger; metrics?: GatewayMetrics; webhookDnsServers?: string[] } = {},
): Promise<RunningGateway> {
  // Member writes go through the gateway's least-privilege MySQL user, as in deployment.
  const config = env.config({ LEGACY_DATABASE_URL: env.legacyGatewayUrl, ...overrides });
  const gateway = createGateway(config, {
    logger: options.logger ?? runLogger(inject('services').runId, 'gateway-test'),
    // Many gateways run at once in a test process, beside other files' on the same server.
    poolSize: 5,
    metrics: options.metrics,
    webhookDnsServers: options.webhookDnsServers,
  });
  // The client has no offline queue: like a load balancer waiting for /readyz, tests send no
  // request before Redis is connected.
  if (gateway.redis.status !== 'ready') await once(gateway.redis, 'ready');
  const server: Server = await new Promise((resolve) => {
    // Port 0 unless the test chose one (a PUBLIC_BASE_URL must name it before the start).
    const port = overrides.PORT === undefined ? 0 : config.http.port;
    const s = createGatewayServer(gateway.app, config.http).listen(port, '127.0.0.1', () =>
      resolve(s),
    );
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db: gateway.db,
    redis: gateway.redis,
    app: gateway.app,
    metrics: gateway.metrics,
    usage: gateway.usage,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await gateway.close();
    },
  };
}

export interface TestClient {
  id: number;
  client_key: string;
  client_secret: string;
}

export async function createTestClient(
  db: ReadModelClient,
  options: {
    scopes?: Scope[];
    branchId?: number | null;
    name?: string;
    limits?: { minute: number; hour: number; day: number };
    /** Classes of members' personal data (api/data-classes.ts); every class by default. */
    dataClasses?: DataClass[];
    /** A sandbox client (api/sandbox.ts); live by default. */
    club?: Club;
  } = {},
): Promise<TestClient> {
  const client = await createClient(db, createClientSecrets([TEST_SECRETS_KEY]), {
    name: options.name ?? 'test client',
    scopes: options.scopes ?? ['members:list', 'members:read'],
    branchId: options.branchId ?? null,
    limits: options.limits,
    dataClasses: options.dataClasses,
    club: options.club,
  });
  noteCredentials(inject('services').runId, client.client_secret);
  return client;
}

/** A branch in the read model, as the worker would have synced it from the dashboard. */
export async function insertBranch(db: ReadModelClient, id: number): Promise<void> {
  const now = new Date();
  await db.branch.upsert({
    where: { id },
    create: {
      id,
      name: `Şube ${id}`,
      status: 'Aktif',
      created_at: now,
      updated_at: now,
      search_text: `sube ${id}`,
    },
    update: {},
  });
}

/**
 * The one way tests call the gateway: every answer, success or error, is checked against the
 * OpenAPI document before the test sees it (test/support/contract.ts).
 */
export async function getJson(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  const { status, headers } = response;
  assertMatchesDocument({ method: init.method ?? 'GET', url, status, headers, body });
  return { status: response.status, headers: response.headers, body: body as Record<string, any> };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return getJson(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

/** A token pair from the real /api/v1/auth/token. */
export async function issueTokenPair(
  gateway: RunningGateway,
  client: TestClient,
): Promise<TokenPair> {
  const { status, body } = await postJson(`${gateway.url}/api/v1/auth/token`, {
    client_key: client.client_key,
    client_secret: client.client_secret,
  });
  if (status !== 200) throw new Error(`token request failed: ${status} ${JSON.stringify(body)}`);
  const pair = body.data as TokenPair;
  noteCredentials(inject('services').runId, pair.access_token, pair.refresh_token);
  return pair;
}

export async function issueToken(gateway: RunningGateway, client: TestClient): Promise<string> {
  return (await issueTokenPair(gateway, client)).access_token;
}

export const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
