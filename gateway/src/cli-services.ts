// The operator CLIs' composition root (npm run clients, webhooks, usage, members, console,
// sandbox, audit), as start.ts createGateway and app.ts createApp are the gateway's: what their
// commands use, made from the same factories, each on a command's first use of it (`clients
// list` opens no Redis, `console link` no MySQL), and closed in one place once the command is
// done. No command makes a service or a database client of its own. Declared here, beside the
// features, so the CLI runner (cli/operator-cli.ts) knows no feature; the entry points load this
// file only when a command runs, so `--help` and argument mistakes answer without the database
// layer.
import { once } from 'node:events';
import type pg from 'pg';
import { loadConfigOrExit, type Config } from '#common/config.js';
import { createReadModelClient, readModelPool, type ReadModelClient } from '#common/databases.js';
import { createRedis, type RedisClient } from '#common/redis.js';
import { withTimeout } from '#common/with-timeout.js';
import type { CliRoot } from './cli/operator-cli.js';
import { createClientSecrets } from './trust/client-secrets.js';
import { announcingEpochs, type RedisConnection } from './features/clients/announce.js';
import type { ClientDeps } from './features/clients/clients.service.js';
import type { ErasureDeps } from './features/members/erasure.service.js';
import type { PortalLinkDeps } from './features/portal/portal-links.js';
import { createWebhookService, type WebhookService } from './features/webhooks/webhooks.service.js';

/** How long a command waits for Redis before it fails (or, announcing, warns). */
const REDIS_WAIT_MS = 3000;

/** What the CLIs' commands use; each part is made on its first use. */
export interface CliServices {
  readonly config: Config;
  /** The read model. */
  readonly db: ReadModelClient;
  /** The read model's pool, for the raw SQL reads (the usage report). */
  readonly pool: pg.Pool;
  /** The client services' parts: epochs announced through Redis, secrets under SECRETS_KEY. */
  readonly clients: ClientDeps;
  /** The webhook service the API and the portal use, as an operator uses it. */
  readonly webhooks: WebhookService;
  /** The deployment's Redis, connected; unreachable within 3 s, it fails. */
  redis: () => Promise<RedisClient>;
  /** A client's portal links: the read model, Redis, where links are made. */
  portalLinks: () => Promise<PortalLinkDeps>;
  /** A member's erasure: the read model, the gateway's MySQL pool, Redis. */
  erasures: () => Promise<ErasureDeps>;
  /** The sandbox's generated club (docs/decisions/0024-sandbox.md), made or made afresh. */
  readonly sandboxClub: { prepare(): Promise<string>; reset(seed: number): Promise<string> };
}

/** The services as a command asks for them: the configuration is read on the first call. */
export type OpenCliServices = (needs?: { secretsKey?: boolean }) => CliServices;

/** A value made on its first read; `made()` is it, or undefined if nothing read it. */
function lazy<T>(make: () => T): { get: () => T; made: () => T | undefined } {
  let value: { v: T } | undefined;
  return {
    get: () => (value ??= { v: make() }).v,
    made: () => value?.v,
  };
}

/** The deployment's Redis, one connection for every part that needs it; errors are the parts'. */
function redisConnection(config: Config): RedisConnection {
  const redis = createRedis(config.redis.url, { caFile: config.redis.caFile });
  redis.on('error', () => undefined);
  const ready = once(redis, 'ready').then(() => undefined);
  // Awaited by whoever needs it; never an unhandled rejection when nobody does.
  ready.catch(() => undefined);
  return { redis, ready };
}

/**
 * The CLIs' services over `config`, each made on its first use, as createGateway makes the
 * gateway's (the read model of DATABASE_URL, the gateway's MySQL user of LEGACY_DATABASE_URL,
 * the deployment's Redis): close() ends what was made.
 */
export function createCliServices(config: Config): CliServices & { close(): Promise<void> } {
  const db = lazy(() => createReadModelClient(config.db.url, { poolSize: 2 }));
  // Opened on its first query only: a sandbox client's branch is one of the generated club's.
  const sandbox = lazy(() =>
    config.sandbox.enabled
      ? createReadModelClient(config.sandbox.dbUrl, { poolSize: 1 })
      : undefined,
  );
  // Loaded when asked: the MySQL driver was a tenth of a command's time (common/databases.ts),
  // and only an erasure writes the dashboard.
  const legacy = lazy(() =>
    import('./features/members/legacy-connection.js').then(({ createGatewayLegacyPool }) =>
      createGatewayLegacyPool(config.legacy.url),
    ),
  );
  const connection = lazy(() => redisConnection(config));
  const epochs = lazy(() => announcingEpochs(config, connection.get, REDIS_WAIT_MS));
  const secrets = lazy(() => createClientSecrets(config.secrets.keys));
  const webhooks = lazy(() => createWebhookService(db.get(), config));
  const redis = async () => {
    const { redis: client, ready } = connection.get();
    await withTimeout(ready, REDIS_WAIT_MS);
    return client;
  };
  const prefix = config.redis.prefix;
  return {
    config,
    get db() {
      return db.get();
    },
    get pool() {
      return readModelPool(db.get());
    },
    get clients() {
      return { db: db.get(), sandbox: sandbox.get(), epochs: epochs.get(), secrets: secrets.get() };
    },
    get webhooks() {
      return webhooks.get();
    },
    redis,
    portalLinks: async () => ({
      db: db.get(),
      redis: await redis(),
      prefix,
      secretsKeys: config.secrets.keys,
      publicOrigin: config.console.publicOrigin,
    }),
    erasures: async () => ({
      db: db.get(),
      legacy: await legacy.get(),
      redis: await redis(),
      prefix,
    }),
    // Loaded when asked: the migration runner and the data generator are the sandbox CLI's alone.
    sandboxClub: {
      async prepare() {
        const [club, { migrateReadModel }] = await sandboxModules();
        return club.prepareSandbox(config, migrateReadModel);
      },
      async reset(seed) {
        const [club, { migrateReadModel }] = await sandboxModules();
        return club.resetSandbox(config, migrateReadModel, seed);
      },
    },
    async close() {
      connection.made()?.redis.disconnect();
      await Promise.all([
        db.made()?.$disconnect(),
        sandbox.made()?.$disconnect(),
        legacy.made()?.then((pool) => pool.end()),
      ]);
    },
  };
}

const sandboxModules = () =>
  Promise.all([import('#legacy-data/sandbox-club.js'), import('#prisma/read-model/migrate.js')]);

/**
 * The root an entry point hands its commands: the configuration read and the services made on
 * the command's first call (after its own argument checks, so a mistake in them is told first),
 * closed by the runner once the command is done.
 */
export function cliRoot(): CliRoot<OpenCliServices> {
  let made: ReturnType<typeof createCliServices> | undefined;
  return {
    services: (needs = {}) =>
      (made ??= createCliServices(loadConfigOrExit({ needsSecretsKey: needs.secretsKey }))),
    close: async () => made?.close(),
  };
}
