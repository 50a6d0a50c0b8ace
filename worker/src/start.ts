import { createCursorCodec } from '#api/changes/cursor.js';
import type { Config } from '#common/config.js';
import {
  createReadModelClient,
  readModelPool,
  type PoolOptions,
  type ReadModelClient,
} from '#common/databases.js';
import { createLegacyClient } from '#common/legacy-database.js';
import { legacyDatabaseExists } from '#legacy-data/legacy-database.js';
import { throttledLog } from '#common/log-throttle.js';
import type { Logger } from '#common/logger.js';
import { createRedis, type RedisClient } from '#common/redis.js';
import type { Registry } from 'prom-client';
import { startRetention } from './retention.js';
import { createSyncMetrics } from './sync/sync-metrics.js';
import { startSyncRunner } from './sync/sync-runner.js';
import { startUsageMerge } from './usage/usage-merge.js';
import { startWebhooks } from './webhooks/webhooks-runner.js';

/**
 * What a worker runs. `sync` and `webhooks` are the roles an operator chooses (WORKER_ROLES);
 * retention and the usage merge run in every worker process, each exactly once however many run.
 */
export type WorkerJob = 'sync' | 'webhooks' | 'retention' | 'usage';

/** A process's jobs: its roles, and the two every worker runs. */
export const processJobs = (config: Config): WorkerJob[] => [
  ...config.workerRoles,
  'retention',
  'usage',
];

const WEBHOOK_POOL_SIZE = 20;

/**
 * The sandbox's reconciliation interval: its club is small (a few thousand rows), and its tables
 * without updated_at (notifications, market categories) are synced by reconciliation alone, so a
 * simulated change of theirs arrives within seconds as its partner expects.
 */
const SANDBOX_RECONCILE_MS = 1000;
/** The sandbox's connections: a small share beside the live club's. */
const SANDBOX_POOL_SIZE = 3;

/** The jobs every worker process runs, each exactly once however many run: retention, usage. */
function upkeepJobs(
  config: Config,
  jobs: readonly WorkerJob[],
  parts: {
    readModel: ReadModelClient;
    connection: RedisClient;
    log: ReturnType<typeof throttledLog>;
  },
) {
  const { readModel, connection, log } = parts;
  return {
    retention: jobs.includes('retention')
      ? startRetention({
          pool: readModelPool(readModel),
          retention: {
            tokensMs: config.tokens.retentionMs,
            auditMs: config.audit.retentionMs,
            webhookEventsMs: config.webhooks.retentionMs,
            usageMs: config.usage.retentionMs,
          },
          log,
        })
      : undefined,
    usageMerge: jobs.includes('usage')
      ? startUsageMerge({
          readModel,
          redis: connection,
          prefix: config.redis.prefix,
          intervalMs: config.usage.mergeIntervalMs,
          log,
        })
      : undefined,
  };
}

/**
 * The sandbox's sync, the live sync's runner on its databases: its own queues and commit
 * announcements under its prefix, polling, reconciling every SANDBOX_RECONCILE_MS.
 */
function startSandboxSync(
  config: Config,
  sandbox: NonNullable<Awaited<ReturnType<typeof sandboxParts>>>,
  connection: RedisClient,
  logger: Logger,
) {
  if (!sandbox.legacy) return undefined;
  return startSyncRunner({
    legacy: sandbox.legacy,
    readModel: sandbox.readModel,
    connection,
    prefix: sandbox.prefix,
    intervalMs: config.sync.intervalMs,
    changesRetentionMs: config.changes.retentionMs,
    reconcileIntervalMs: SANDBOX_RECONCILE_MS,
    staleAfterIntervals: config.sync.staleAfterIntervals,
    source: 'poll',
    logger: logger.child({ club: 'sandbox' }),
  });
}

/**
 * The sandbox's databases as this worker's jobs need them (docs/decisions/0024-sandbox.md): its
 * dashboard for the sync, its read model for the sync and for webhooks' dispatch (its feed), and
 * the Redis prefix its queues and commit announcements live under.
 */
async function sandboxParts(
  config: Config,
  jobs: readonly WorkerJob[],
  bounds: PoolOptions,
  logger: Logger,
) {
  if (!config.sandbox.enabled) return undefined;
  if (!jobs.includes('sync') && !jobs.includes('webhooks')) return undefined;
  // Made by db:migrate; a worker started without it runs the live club alone, and says so.
  if (!(await legacyDatabaseExists(config.sandbox.legacyUrl).catch(() => false))) {
    logger.warn(
      'the sandbox is on but its dashboard database is missing or not readable by ' +
        "SANDBOX_LEGACY_DATABASE_URL's user: run npm run db:migrate, grant SELECT on it (or set " +
        'SANDBOX=off); this worker runs without it',
    );
    return undefined;
  }
  const pool = { ...bounds, poolSize: SANDBOX_POOL_SIZE };
  return {
    legacy: jobs.includes('sync') ? createLegacyClient(config.sandbox.legacyUrl, pool) : undefined,
    readModel: createReadModelClient(config.sandbox.dbUrl, pool),
    prefix: `${config.redis.prefix}:sandbox`,
  };
}

export interface WorkerOptions {
  logger: Logger;
  /** The jobs to run; the process runs `processJobs(config)`, a test the ones it exercises. */
  jobs: readonly WorkerJob[];
  /** The dashboard's URL when it is not LEGACY_DATABASE_URL (tests reaching a private server). */
  legacyUrl?: string;
  /** Each pool's size; the process's own when absent. */
  poolSize?: number;
  /** Name servers for webhook targets' names instead of the system's (tests). */
  dnsServers?: readonly string[];
}

/** The worker's parts, running; what serves `registry` on a port is the caller's. */
export interface Worker {
  readModel: ReadModelClient;
  registry: Registry;
  runner: Awaited<ReturnType<typeof startSyncRunner>> | undefined;
  webhooks: ReturnType<typeof startWebhooks> | undefined;
  /** Every job stopped at a safe point, then every pool and connection closed. */
  close(): Promise<void>;
}

/**
 * The one way a worker is put together from its configuration: the process (run.ts) and the
 * tests alike, as the gateway's createGateway. Redis connects at once; the pools open on their
 * first query. Resolves once the sync runner, when it is a job, has started.
 */
export async function createWorker(config: Config, options: WorkerOptions): Promise<Worker> {
  const { logger, jobs } = options;
  const log = throttledLog(logger);
  const bounds = {
    queryTimeoutMs: config.sync.queryTimeoutMs,
    connectTimeoutMs: 5000,
    applicationName: 'worker',
    ...(options.poolSize ? { poolSize: options.poolSize } : {}),
  };
  const legacyUrl = options.legacyUrl ?? config.legacy.url;
  const syncing = jobs.includes('sync');
  const legacy = syncing ? createLegacyClient(legacyUrl, bounds) : undefined;
  // Deliveries have a pool of their own beside the sync: a hundred tries at once must not wait
  // behind the sync's batches, nor the sync behind them. Without the sync, the one pool is theirs.
  const webhookBounds = { ...bounds, poolSize: options.poolSize ?? WEBHOOK_POOL_SIZE };
  const readModel = createReadModelClient(config.db.url, syncing ? bounds : webhookBounds);
  const webhooksPool = !jobs.includes('webhooks')
    ? undefined
    : syncing
      ? readModelPool(createReadModelClient(config.db.url, webhookBounds))
      : readModelPool(readModel);
  const connection = createRedis(config.redis.url, {
    forWorker: true,
    caFile: config.redis.caFile,
  });
  connection.on('error', (error) => log('warn', 'redis', { err: error }, 'redis error'));
  const metrics = createSyncMetrics(readModel);

  const starting = legacy
    ? startSyncRunner({
        legacy,
        readModel,
        connection,
        prefix: config.redis.prefix,
        intervalMs: config.sync.intervalMs,
        changesRetentionMs: config.changes.retentionMs,
        reconcileIntervalMs: config.sync.reconcileIntervalMs,
        staleAfterIntervals: config.sync.staleAfterIntervals,
        source: config.sync.source,
        legacyUrl,
        logger,
        metrics,
      })
    : undefined;
  const sandbox = await sandboxParts(config, jobs, bounds, logger);
  const sandboxSync = sandbox && startSandboxSync(config, sandbox, connection, logger);
  const webhooks = webhooksPool
    ? startWebhooks({
        pool: webhooksPool,
        connection,
        prefix: config.redis.prefix,
        config: config.webhooks,
        registry: metrics.registry,
        log,
        cursors: createCursorCodec(config.secrets.keys),
        secretsKeys: config.secrets.keys,
        ...(options.dnsServers ? { dnsServers: options.dnsServers } : {}),
        sandbox: sandbox && {
          pool: readModelPool(sandbox.readModel),
          prefix: sandbox.prefix,
        },
      })
    : undefined;
  const { retention, usageMerge } = upkeepJobs(config, jobs, { readModel, connection, log });

  // A job cut by a deadline is safe: a sync run commits its rows and position in one
  // transaction, and the stalled-job check hands a job to another worker once its lock expires.
  async function close() {
    retention?.stop();
    await Promise.allSettled([
      starting?.then((runner) => runner.close()),
      sandboxSync?.then((runner) => runner.close()),
      webhooks?.close(),
      usageMerge?.stop(),
    ]);
    await Promise.allSettled([
      legacy?.$disconnect(),
      readModel.$disconnect(),
      sandbox?.legacy?.$disconnect(),
      sandbox?.readModel.$disconnect(),
    ]);
    // Prisma ends a pool only if it made a query itself; a pool the deliveries used alone may not.
    await webhooksPool?.end().catch(() => undefined);
    // QUIT waits for the replies still due; a Redis that does not answer is left at once.
    await connection.quit().catch(() => connection.disconnect());
  }
  const runner = await starting;
  await sandboxSync;
  return { readModel, registry: metrics.registry, runner, webhooks, close };
}
