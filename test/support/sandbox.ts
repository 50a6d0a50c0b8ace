// A test environment with the partners' sandbox on (docs/decisions/0024-sandbox.md): its
// databases prepared and generated, a worker syncing both clubs, a webhook worker, a gateway, a
// webhook receiver, and a sandbox client and a live client with every read scope.
import { migrateReadModel } from '#prisma/read-model/migrate.js';
import type { Config } from '#common/config.js';
import { expect } from 'vitest';
import { prepareSandbox } from '../../scripts/legacy/sandbox-club.js';
import { createTestEnvironment, type TestEnvironment } from './environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
  type TestClient,
} from './gateway.js';
import { eventually } from './eventually.js';
import { READ_SCOPES } from './partner-copy.js';
import { LOCAL_WEBHOOKS, startReceiver } from './webhook-receiver.js';
import { startWebhookWorker, startWorker } from './worker.js';

export const SANDBOX_SETTINGS = {
  SANDBOX: 'on',
  ...LOCAL_WEBHOOKS,
  RATE_LIMIT_PER_MINUTE: '100000',
  RATE_LIMIT_PER_HOUR: '100000',
};

export const SANDBOX_SCOPES = [
  ...READ_SCOPES,
  'webhooks:manage' as const,
  'members:write' as const,
];

export interface SandboxFixture {
  env: TestEnvironment;
  config: Config;
  gateway: RunningGateway;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** The receiver's secrets by path, for its verification. */
  secrets: Map<string, string>;
  sandbox: { key: string; token: string; client: TestClient };
  liveToken: string;
  close(): Promise<void>;
}

/**
 * `beforeWorker` runs on the environment before anything syncs it (a test's live data);
 * `gatewaySettings` are the gateway's own variables (a PORT and PUBLIC_BASE_URL). Resolves
 * once the sandbox client reads the generated club.
 */
export async function startSandboxFixture(
  beforeWorker: (env: TestEnvironment) => Promise<void> = () => Promise.resolve(),
  gatewaySettings: Record<string, string> = {},
): Promise<SandboxFixture> {
  const env = await createTestEnvironment();
  const config = env.config({ SANDBOX: 'on' });
  await prepareSandbox(config, migrateReadModel);
  await beforeWorker(env);
  const worker = await startWorker(env, { settings: { SANDBOX: 'on' } });
  // The gateway's own MySQL user has no grant on the sandbox's database; the suite's has.
  const gateway = await startGateway(env, {
    ...SANDBOX_SETTINGS,
    SANDBOX_LEGACY_DATABASE_URL: config.sandbox.legacyUrl,
    ...gatewaySettings,
  });
  const secrets = new Map<string, string>();
  const receiver = await startReceiver({ secrets });
  const webhooks = await startWebhookWorker(env, SANDBOX_SETTINGS);
  const client = await createTestClient(gateway.db, { scopes: SANDBOX_SCOPES, club: 'sandbox' });
  const token = await issueToken(gateway, client);
  const liveToken = await issueToken(
    gateway,
    await createTestClient(gateway.db, { scopes: SANDBOX_SCOPES }),
  );
  // The worker loads the sandbox's club as it loads a new installation.
  await eventually(async () => {
    const answer = await getJson(`${gateway.url}/api/v1/members?limit=1`, bearer(token));
    expect(answer.body.pagination?.total).toBeGreaterThan(100);
  }, 30_000);
  return {
    env,
    config,
    gateway,
    receiver,
    secrets,
    sandbox: { key: client.client_key, token, client },
    liveToken,
    async close() {
      await webhooks.close();
      await worker.close();
      await receiver.close();
      await gateway.close();
      await env.destroy();
    },
  };
}
