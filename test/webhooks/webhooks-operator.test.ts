// The operator's hold on subscriptions, driven from outside: `npm run webhooks` as a subprocess
// beside a real gateway. A subscription the operator disabled stays disabled until the operator
// enables it; one disabled automatically (410, days of failures) the partner may enable. What a
// partner wrote (URL, description, its server's answer) reaches the operator's terminal with its
// control characters escaped.
import { describe, expect } from 'vitest';
import { createWebhookService } from '../../gateway/src/features/webhooks/webhooks.service.js';
import type { TestEnvironment } from '../support/environment.js';
import { clientTest } from '../support/fixtures.js';
import { operatorCli } from '../support/operator-cli.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  postJson,
  type RunningGateway,
} from '../support/gateway.js';

const it = clientTest(
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT: '50' },
  { scopes: ['members:read', 'webhooks:manage'] },
);

// Read by the helpers below as by the tests.
let env: TestEnvironment;
let gateway: RunningGateway;
let token: string;

it.beforeAll(({ env: made, gateway: started, token: issued }) => {
  env = made;
  gateway = started;
  token = issued;
});

const webhooks = (...args: string[]) => operatorCli(env, 'webhooks', ...args);

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

  it.each(['gone', 'failing'] as const)(
    'when the worker disabled a subscription (%s), then the partner may enable it',
    async (reason) => {
      const id = await subscribe();
      await createWebhookService(gateway.db, env.config()).setEnabled(null, id, false, reason);
      const answer = await partnerEnables(id);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ enabled: true, disabled_reason: null });
    },
  );

  it('when the operator disables a subscription the worker had disabled, then the operator holds it', async () => {
    const id = await subscribe({ url: 'http://127.0.0.1:8090/hook' });
    await createWebhookService(gateway.db, env.config()).setEnabled(null, id, false, 'gone');
    expect(JSON.parse(await webhooks('disable', String(id), '--json'))).toMatchObject({
      enabled: false,
      disabled_reason: 'operator',
    });
    expect((await partnerEnables(id)).status).toBe(403);
  });
});

describe("the operator's kill switch, against a subscription deleted and created again", () => {
  const remove = (id: number) =>
    fetch(`${gateway.url}/api/v1/webhooks/${id}`, { method: 'DELETE', ...bearer(token) });
  const create = (url: string) =>
    postJson(`${gateway.url}/api/v1/webhooks`, { url, types: ['members'] }, bearer(token).headers);

  it('when the partner deletes a subscription the operator disabled, then creating one for the same target is 403 until the operator enables it', async () => {
    const url = 'http://127.0.0.1:8081/held';
    const id = await subscribe({ url });
    await webhooks('disable', String(id));
    // Beside it, while it is still there.
    const beside = await create('http://127.0.0.1:8081/held');
    expect([beside.status, beside.body.error]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    expect((await remove(id)).status).toBe(200);

    // The same endpoint, written otherwise: the host's case, the default port, a trailing slash,
    // a query of its own.
    for (const again of [url, 'http://127.0.0.1:8081/held/', 'http://127.0.0.1:8081/held?x=1']) {
      const refused = await create(again);
      expect([refused.status, refused.body.error], again).toEqual([403, 'INSUFFICIENT_SCOPE']);
      expect(refused.body.message).toMatch(/operatör/i);
    }
    // Another port of the same partner is not held.
    expect((await create('http://127.0.0.1:8082/held')).status).toBe(201);

    expect(JSON.parse(await webhooks('enable', String(id), '--json'))).toMatchObject({
      id,
      deleted: true,
    });
    expect((await create(url)).status).toBe(201);
    // The hold is gone with the operator's enable: nothing is left of it.
    expect(await gateway.db.webhookHeldTarget.count({ where: { subscription_id: id } })).toBe(0);
  });

  it('when another client subscribes to a target held for one client, then it is not refused', async () => {
    const url = 'http://127.0.0.1:8083/held-for-one';
    const id = await subscribe({ url });
    await webhooks('disable', String(id));
    await remove(id);
    const other = await issueToken(
      gateway,
      await createTestClient(gateway.db, { scopes: ['members:read', 'webhooks:manage'] }),
    );
    const answer = await postJson(
      `${gateway.url}/api/v1/webhooks`,
      { url, types: ['members'] },
      bearer(other).headers,
    );
    expect(answer.status).toBe(201);
  });

  it('when the operator disables a subscription, then any path or scheme of its host and port is refused, deleted or not, until the operator enables it', async () => {
    const id = await subscribe({ url: 'http://127.0.0.1:8084/hook' });
    const elsewhere = await subscribe({ url: 'http://127.0.0.1:8085/hook' });
    expect(await webhooks('disable', String(id))).toMatch(/this host and port/);
    const variants = [
      'http://127.0.0.1:8084/Hook',
      'http://127.0.0.1:8084//hook',
      'http://127.0.0.1:8084/hook;x',
      'https://127.0.0.1:8084/other',
      'http://0x7f000001:8084/',
    ];
    const refusedAll = async () => {
      for (const url of variants) {
        const refused = await create(url);
        expect([refused.status, refused.body.error], url).toEqual([403, 'INSUFFICIENT_SCOPE']);
        expect(refused.body.message).toMatch(/operatör/i);
        // Nor may another subscription be pointed there.
        const moved = await getJson(`${gateway.url}/api/v1/webhooks/${elsewhere}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', ...bearer(token).headers },
          body: JSON.stringify({ url }),
        });
        expect([moved.status, moved.body.error], url).toEqual([403, 'INSUFFICIENT_SCOPE']);
      }
    };
    await refusedAll();
    expect((await remove(id)).status).toBe(200);
    await refusedAll();

    await webhooks('enable', String(id));
    expect((await create('http://127.0.0.1:8084/Hook')).status).toBe(201);
  });

  it('when the operator disables a subscription with --path-only, then only its path is held', async () => {
    const url = 'http://127.0.0.1:8086/hook';
    const id = await subscribe({ url });
    expect(await webhooks('disable', String(id), '--path-only')).toMatch(/this URL's path/);
    const check = async () => {
      for (const other of [
        'http://127.0.0.1:8086/Hook',
        'http://127.0.0.1:8086//hook',
        'http://127.0.0.1:8086/hook;x',
      ]) {
        expect((await create(other)).status, other).toBe(201);
      }
      for (const same of [url, 'http://127.0.0.1:8086/hook/', 'https://127.0.0.1:8086/hook']) {
        expect((await create(same)).status, same).toBe(403);
      }
    };
    await check();
    expect((await remove(id)).status).toBe(200);
    await check();
  });

  it('when the OpenAPI document describes creating a subscription, then it names the 403 of a held target', async () => {
    const document = await getJson(`${gateway.url}/api/v1/openapi.json`);
    const create = document.body.paths['/api/v1/webhooks'].post;
    expect(create.responses['403']).toBeDefined();
    expect(create.description).toMatch(/operator disabled[^]*403 `INSUFFICIENT_SCOPE`/);
  });
});

describe("partner text on the operator's terminal", () => {
  const ESC = '\u001b';
  it('when a URL, a description or an answer carries control characters, then the CLI prints them escaped', async () => {
    const url = `http://127.0.0.1:8080/hook${ESC}[2J${ESC}[31m`;
    const description = `Turnike${ESC}]0;pwned\u0007${ESC}[1A\r`;
    const id = await subscribe({ url, description });
    const event = await gateway.db.webhookEvent.create({
      data: {
        subscription_id: id,
        event_type: 'members.upsert',
        body: '{}',
        changed_at: new Date(),
      },
    });
    await gateway.db.webhookAttempt.create({
      data: {
        event_id: event.id,
        subscription_id: id,
        outcome: 'http_error',
        status_code: 500,
        duration_ms: 3,
        response: `oops${ESC}[2K${ESC}[8m\u009b31m`,
      },
    });

    const outputs = [
      await webhooks('list'),
      await webhooks('disable', String(id)),
      await webhooks('deliveries', String(id)),
      await webhooks('list', '--json'),
    ];
    // Nothing a terminal would act on: no C0 control but the line breaks, no DEL, no C1.
    const controls = (text: string) =>
      [...text].filter((c) => {
        const code = c.codePointAt(0)!;
        return (code < 0x20 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
      });
    for (const output of outputs) expect(controls(output)).toEqual([]);
    const [list, disabled, deliveries] = outputs;
    expect(list).toContain('/hook\\u001b[2J\\u001b[31m');
    expect(disabled).toContain('Turnike\\u001b]0;pwned\\u0007\\u001b[1A\\u000d');
    expect(deliveries).toContain('oops\\u001b[2K\\u001b[8m\\u009b31m');
  });
});
