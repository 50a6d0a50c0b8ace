// Per-client rate limits over the real gateway and the shared Redis (specification §8,
// docs/decisions/0004-rate-limits.md), with GET /api/v1/members?limit=1 as the protected endpoint.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  type ClientLimits,
} from '../../gateway/src/features/clients/clients.repository.js';
import { createClientSecrets } from '../../gateway/src/trust/client-secrets.js';
import {
  createTestEnvironment,
  TEST_SECRETS_KEY,
  type TestEnvironment,
} from '../support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from '../support/gateway.js';

const run = promisify(execFile);
let env: TestEnvironment;
let gateway: RunningGateway;
let twin: RunningGateway;

beforeAll(async () => {
  env = await createTestEnvironment();
  // Two instances on one database and one Redis prefix: two replicas of one deployment.
  [gateway, twin] = await Promise.all([startGateway(env), startGateway(env)]);
});

afterAll(async () => {
  await Promise.all([gateway?.close(), twin?.close()]);
  await env?.destroy();
});

async function tokenFor(limits?: ClientLimits, via = gateway) {
  const client = limits
    ? await createClient(via.db, createClientSecrets([TEST_SECRETS_KEY]), {
        name: 'limited',
        scopes: ['members:list', 'members:read'],
        branchId: null,
        limits,
      })
    : await createTestClient(via.db);
  return { client, token: await issueToken(via, client) };
}

const call = (token: string, via = gateway) =>
  getJson(`${via.url}/api/v1/members?limit=1`, bearer(token));

const header = (response: { headers: Headers }, name: string) => response.headers.get(name);

function expectRefused(response: Awaited<ReturnType<typeof call>>) {
  expect(response.status).toBe(429);
  expect(response.body).toMatchObject({ success: false, error: 'RATE_LIMIT_EXCEEDED' });
  expect(Number.isInteger(response.body.retryAfter)).toBe(true);
  expect(header(response, 'retry-after')).toBe(String(response.body.retryAfter));
  return response.body.retryAfter as number;
}

describe('per-minute limit', () => {
  it('when a client sends 61 requests in a minute, then 60 pass counting down to 0 and the 61st is 429', async () => {
    const { token } = await tokenFor();
    for (let i = 1; i <= 60; i++) {
      const response = await call(token);
      expect(response.status).toBe(200);
      expect(header(response, 'x-ratelimit-limit-minute')).toBe('60');
      expect(header(response, 'x-ratelimit-remaining-minute')).toBe(String(60 - i));
    }
    const refused = await call(token);
    const retryAfter = expectRefused(refused);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(header(refused, 'x-ratelimit-remaining-minute')).toBe('0');
    expect(header(refused, 'x-ratelimit-limit-hour')).toBe('1000');
    expect(header(refused, 'x-ratelimit-remaining-hour')).toBe('940');
    expect(header(refused, 'x-ratelimit-limit-day')).toBe('10000');
    expect(header(refused, 'x-ratelimit-remaining-day')).toBe('9940');
    // Refused requests keep the count at its ceiling, never below zero.
    expect(header(await call(token), 'x-ratelimit-remaining-minute')).toBe('0');
  });

  it('when 200 requests arrive at once spread over two instances, then exactly 60 pass', async () => {
    const { token } = await tokenFor(undefined, twin);
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => call(token, i % 2 === 0 ? gateway : twin)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(140);
  });
});

describe('per-client limits', () => {
  it('when a client is set to 5 a minute, then its sixth request is refused while a default client is unaffected', async () => {
    const five = await tokenFor({ minute: 5, hour: 1000, day: 10000 });
    const standard = await tokenFor();
    for (let i = 1; i <= 5; i++) {
      const mine = await call(five.token);
      const theirs = await call(standard.token);
      expect(mine.status).toBe(200);
      expect(header(mine, 'x-ratelimit-limit-minute')).toBe('5');
      expect(header(mine, 'x-ratelimit-remaining-minute')).toBe(String(5 - i));
      // Two clients never share counters.
      expect(header(theirs, 'x-ratelimit-limit-minute')).toBe('60');
      expect(header(theirs, 'x-ratelimit-remaining-minute')).toBe(String(60 - i));
    }
    expectRefused(await call(five.token));
    expect((await call(standard.token)).status).toBe(200);
  });

  it('when an operator runs set-limits, then the running gateway applies the new numbers to the next request', async () => {
    const { client, token } = await tokenFor();
    expect(header(await call(token), 'x-ratelimit-remaining-minute')).toBe('59');
    await run(
      'npm',
      ['run', '--silent', 'clients', '--', 'set-limits', client.client_key, '2/50/70'],
      {
        env: {
          ...process.env,
          DATABASE_URL: env.databaseUrl,
          REDIS_URL: env.redisUrl,
          REDIS_PREFIX: env.redisPrefix,
        },
      },
    );
    const second = await call(token);
    expect(second.status).toBe(200);
    expect(header(second, 'x-ratelimit-limit-minute')).toBe('2');
    expect(header(second, 'x-ratelimit-remaining-minute')).toBe('0');
    expect(header(second, 'x-ratelimit-limit-hour')).toBe('50');
    expect(header(second, 'x-ratelimit-limit-day')).toBe('70');
    expectRefused(await call(token));
  });
});

describe('hour and day windows', () => {
  it('when a client has used its hour, then it is refused until the hour ends, with every window in the headers', async () => {
    const { token } = await tokenFor({ minute: 100, hour: 3, day: 1000 });
    for (let i = 1; i <= 3; i++) {
      const response = await call(token);
      expect(response.status).toBe(200);
      expect(header(response, 'x-ratelimit-limit-hour')).toBe('3');
      expect(header(response, 'x-ratelimit-remaining-hour')).toBe(String(3 - i));
    }
    const refused = await call(token);
    const retryAfter = expectRefused(refused);
    expect(retryAfter).toBeGreaterThan(60);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(header(refused, 'x-ratelimit-remaining-hour')).toBe('0');
    // The minute counts the refused attempt; the day never saw it.
    expect(header(refused, 'x-ratelimit-remaining-minute')).toBe('96');
    expect(header(refused, 'x-ratelimit-remaining-day')).toBe('997');
    expect(header(refused, 'ratelimit-policy')).toBe(
      '"minute";q=100;w=60, "hour";q=3;w=3600, "day";q=1000;w=86400',
    );
    expect(header(refused, 'ratelimit')).toMatch(
      new RegExp(`^"minute";r=96;t=\\d+, "hour";r=0;t=${retryAfter}, "day";r=997;t=\\d+$`),
    );
  });

  it('when the default day limit is small, then the day refuses with a retryAfter of up to a day', async () => {
    const daily = await startGateway(env, { RATE_LIMIT_PER_DAY: '2' });
    try {
      const { token } = await tokenFor(undefined, daily);
      for (let i = 1; i <= 2; i++) {
        const response = await call(token, daily);
        expect(response.status).toBe(200);
        expect(header(response, 'x-ratelimit-limit-day')).toBe('2');
        expect(header(response, 'x-ratelimit-remaining-day')).toBe(String(2 - i));
        expect(header(response, 'ratelimit-policy')).toBe(
          '"minute";q=60;w=60, "hour";q=1000;w=3600, "day";q=2;w=86400',
        );
      }
      const refused = await call(token, daily);
      const retryAfter = expectRefused(refused);
      expect(retryAfter).toBeGreaterThan(3600);
      expect(retryAfter).toBeLessThanOrEqual(86400);
      expect(header(refused, 'x-ratelimit-remaining-day')).toBe('0');
      expect(header(refused, 'x-ratelimit-remaining-minute')).toBe('57');
    } finally {
      await daily.close();
    }
  });

  it('when the minute and the hour are both used up, then retryAfter waits for the hour', async () => {
    const { token } = await tokenFor({ minute: 2, hour: 2, day: 1000 });
    expect((await call(token)).status).toBe(200);
    const last = await call(token);
    expect(header(last, 'ratelimit')).toMatch(
      /^"minute";r=0;t=\d+, "hour";r=0;t=\d+, "day";r=998;t=\d+$/,
    );
    const retryAfter = expectRefused(await call(token));
    expect(retryAfter).toBeGreaterThan(60);
  });
});

describe('headers of a fresh client', () => {
  it('when a client makes its first request, then the structured fields name three policies with full quotas less one', async () => {
    const { token } = await tokenFor();
    const response = await call(token);
    expect(header(response, 'ratelimit-policy')).toBe(
      '"minute";q=60;w=60, "hour";q=1000;w=3600, "day";q=10000;w=86400',
    );
    expect(header(response, 'ratelimit')).toMatch(
      /^"minute";r=59;t=(59|60), "hour";r=999;t=(3599|3600), "day";r=9999;t=(86399|86400)$/,
    );
    // The library's own headers are off: only ours are sent.
    expect(header(response, 'x-ratelimit-limit')).toBeNull();
    expect(header(response, 'ratelimit-limit')).toBeNull();
  });
});
