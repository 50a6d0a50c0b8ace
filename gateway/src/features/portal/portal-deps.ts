// What the portal's pages stand on: the services the API's endpoints use for the same client.
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import type { RedisClient } from '#common/redis.js';
import type { ClientEpochs } from '../../trust/client-epochs.js';
import type { ClientSecrets } from '../../trust/client-secrets.js';
import type { SandboxEvents } from '../sandbox/sandbox.events.js';
import type { UsageServices } from '../usage/usage.report.js';
import type { WebhookService } from '../webhooks/webhooks.service.js';

export interface PortalDeps {
  config: Config;
  db: ReadModelClient;
  redis: RedisClient;
  epochs: ClientEpochs;
  secrets: ClientSecrets;
  webhooks: WebhookService;
  usage: UsageServices;
  /** Changes on demand in the sandbox's club (the quick start); undefined when SANDBOX is off. */
  sandboxEvents: SandboxEvents | undefined;
}
