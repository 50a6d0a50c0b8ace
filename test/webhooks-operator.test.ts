// The operator's hold on subscriptions, driven from outside: `npm run webhooks` as a subprocess
// beside a real gateway. A subscription the operator disabled stays disabled until the operator
// enables it; one disabled automatically (410, days of failures) the partner may enable.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookService } from '../gateway/src/features/webhooks/webhooks.service.js';
import { createTestEnvironment, type TestEnvironment } from './support/environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  startGateway,
  type RunningGateway,
} from './support/gateway.js';

const run = promisify(execFile);
let env: TestEnvironment;
let gateway: RunningGateway;
let token: string;

async function webhooks(...args: string[]): Promise<string> {
  const { stdout } = await run('npm', ['run', '--silent', 'webhooks', '--', ...args], {
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      LEGACY_DATABASE_URL: env.legacyUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
    },
  });
  return stdout;
}

beforeAll(async () => {
  env = await createTestEnvironment();
  gateway = await startGateway(env, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  token = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
  );
});

afterAll(async () => {
  await gateway?.close();
  await env?.destroy();
});

async function subscribe(body: Record<string, unknown> = {}): Promise<number> {
  const answer = await postJson(
    `${gateway.url}/api/v1/webhooks`,
    { url: 'http://127.0.0.1:8080/hook', types: ['members'], ...body },
    bearer(token).headers,
  );
  expect(answer.status).toBe(201);
  return answer.body.data.id as number;
}

const partnerEnables = (id: number) =>
  postJson(`${gateway.url}/api/v1/webhooks/${id}/enable`, {}, bearer(token).headers);

const stateOf = async (id: number) => {
  const answer = await getJson(`${gateway.url}/api/v1/webhooks/${id}`, bearer(token));
  return { enabled: answer.body.data.enabled, reason: answer.body.data.disabled_reason };
};

describe("the operator's kill switch", () => {
  it('when the operator disabled a subscription, then the partner cannot enable it and the operator can', async () => {
    const id = await subscribe();
    expect(await webhooks('disable', String(id))).toMatch(/disabled \(operator\)/);

    const refused = await partnerEnables(id);
    expect([refused.status, refused.body.error]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    expect(refused.body.message).toMatch(/operatör/i);
    expect(await stateOf(id)).toEqual({ enabled: false, reason: 'operator' });

    expect(JSON.parse(await webhooks('enable', String(id), '--json'))).toMatchObject({
      id,
      enabled: true,
      disabled_reason: null,
    });
    expect(await stateOf(id)).toEqual({ enabled: true, reason: null });
  });

  it.each(['gone', 'failing'])(
    'when the worker disabled a subscription (%s), then the partner may enable it',
    async (reason) => {
      const id = await subscribe();
      await createWebhookService(gateway.db).setEnabled(null, id, false, reason);
      const answer = await partnerEnables(id);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ enabled: true, disabled_reason: null });
    },
  );

  it('when the operator disables a subscription the worker had disabled, then the operator holds it', async () => {
    const id = await subscribe();
    await createWebhookService(gateway.db).setEnabled(null, id, false, 'gone');
    expect(JSON.parse(await webhooks('disable', String(id), '--json'))).toMatchObject({
      enabled: false,
      disabled_reason: 'operator',
    });
    expect((await partnerEnables(id)).status).toBe(403);
  });
});
