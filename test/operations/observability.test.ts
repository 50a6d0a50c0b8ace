// What an operator sees of the gateway: one JSON line per request, request metrics on the
// metrics listener (never on the public port), and no credential anywhere in the log.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { throttledLog } from '#common/log-throttle.js';
import { startMetricsListener, type MetricsListener } from '#common/metrics-listener.js';
import { createGatewayMetrics } from '../../gateway/src/http/metrics.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueTokenPair,
  startGateway,
  type RunningGateway,
  type TestClient,
  type TokenPair,
} from '../support/gateway.js';
import { captureLogs } from '../support/log-capture.js';
import { SpareRedis } from '../support/spare-redis.js';

let env: TestEnvironment;
let gateway: RunningGateway;
let metricsServer: MetricsListener;
let client: TestClient;
let pair: TokenPair;
const capture = captureLogs();

beforeAll(async () => {
  env = await createTestEnvironment();
  const metrics = createGatewayMetrics();
  gateway = await startGateway(env, {}, { logger: capture.logger, metrics });
  metricsServer = await startMetricsListener({
    registry: metrics.registry,
    port: 0,
    log: throttledLog(capture.logger),
  });
  client = await createTestClient(gateway.db);
  pair = await issueTokenPair(gateway, client);
});

afterAll(async () => {
  await metricsServer?.close();
  await gateway?.close();
  await env?.destroy();
});

const withId = (id: string, token?: string) => ({
  headers: { 'x-request-id': id, ...(token ? bearer(token).headers : {}) },
});

describe('request log', () => {
  it('when a member is asked for, then its request id is in exactly one line with status, route template and client', async () => {
    const { status } = await getJson(
      `${gateway.url}/api/v1/members/987654`,
      withId('obs-1', pair.access_token),
    );
    expect(status).toBe(404);
    const lines = capture.linesOf('obs-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      method: 'GET',
      route: '/api/v1/members/:id',
      status: 404,
      client_id: client.id,
      client_key: client.client_key,
      duration_ms: expect.any(Number),
    });
  });

  it('when a request fails authentication or matches no route, then it is still one line, without the URL', async () => {
    await getJson(`${gateway.url}/api/v1/members?search=secretish`, withId('obs-2', 'bad-token'));
    await getJson(`${gateway.url}/no/such/path`, withId('obs-3'));
    expect(capture.linesOf('obs-2')).toEqual([
      expect.objectContaining({ status: 401, route: '/api/v1/members' }),
    ]);
    expect(capture.linesOf('obs-3')).toEqual([
      expect.objectContaining({ status: 404, route: 'unmatched' }),
    ]);
    expect(capture.text()).not.toContain('secretish');
  });

  it('when tokens are issued and refreshed on every token endpoint, then no secret, token or hash is in the log', async () => {
    const basic = Buffer.from(`${client.client_key}:${client.client_secret}`).toString('base64');
    const oauth = await getJson(`${gateway.url}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(oauth.status).toBe(200);
    const refreshed = await getJson(`${gateway.url}/api/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: pair.refresh_token }),
    });
    expect(refreshed.status).toBe(200);
    await getJson(`${gateway.url}/api/v1/members`, bearer(refreshed.body.data.access_token));
    capture.expectNoCredentials([
      client.client_secret,
      pair.access_token,
      pair.refresh_token,
      oauth.body.access_token as string,
      refreshed.body.data.access_token as string,
      refreshed.body.data.refresh_token as string,
      basic,
    ]);
    const secretHash = await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } });
    expect(capture.text()).not.toContain(secretHash.secret_hash);
  });
});

describe('metrics', () => {
  it('when GET /metrics is asked on the public port, then it answers 404', async () => {
    expect((await getJson(`${gateway.url}/metrics`)).status).toBe(404);
  });

  it('when the metrics port is scraped, then it has request histograms by route and status and process metrics', async () => {
    await getJson(`${gateway.url}/api/v1/members/1`, bearer(pair.access_token));
    const response = await fetch(`http://127.0.0.1:${metricsServer.port}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(
      /gateway_http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/api\/v1\/members\/:id",status="\d{3}"\}/,
    );
    expect(text).toMatch(/gateway_http_request_duration_seconds_count\{[^}]*status="401"/);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).not.toMatch(/route="\/api\/v1\/members\/1"/);
  });
});

describe('dependency failures in the log', () => {
  it('when the failed-login throttle cannot reach Redis, then that is a JSON log line, not console output', async () => {
    const redis = await SpareRedis.start();
    const logs = captureLogs();
    const own = await startGateway(env, { REDIS_URL: redis.url }, { logger: logs.logger });
    const consoleError = vi.spyOn(console, 'error');
    const consoleWarn = vi.spyOn(console, 'warn');
    try {
      await redis.stop();
      const { status } = await getJson(`${own.url}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_key: client.client_key, client_secret: 'wrong' }),
      });
      expect(status).toBeLessThan(500);
      expect(consoleError).not.toHaveBeenCalled();
      expect(consoleWarn).not.toHaveBeenCalled();
      const throttleLines = logs
        .lines()
        .filter((line) =>
          /failed-attempt counters unreachable|express-rate-limit/.test(String(line.msg)),
        );
      expect(throttleLines.length).toBeGreaterThan(0);
      expect(throttleLines[0]).toMatchObject({ level: 40, err: expect.any(Object) });
    } finally {
      consoleError.mockRestore();
      consoleWarn.mockRestore();
      await own.close();
      await redis.destroy();
    }
  });
});
