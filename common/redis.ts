import { readFileSync } from 'node:fs';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** One Redis server or a Redis Cluster: every caller works with either (docs/decisions/0013). */
export type RedisClient = Redis | Cluster;

/**
 * The scheme that names a cluster: `redis+cluster://host:port[,host:port...]` (rediss+ for TLS).
 */
const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(.+)$/;

export interface ClusterSeeds {
  tls: boolean;
  username?: string;
  password?: string;
  nodes: { host: string; port: number }[];
}

/** The seed nodes of a cluster URL, or null for a single server's URL. Throws on a bad list. */
export function clusterSeedsOf(url: string): ClusterSeeds | null {
  const match = CLUSTER_URL.exec(url);
  if (!match) return null;
  const [, scheme = 'redis', rest = ''] = match;
  const at = rest.lastIndexOf('@');
  const credentials = at >= 0 ? rest.slice(0, at) : '';
  const [user = '', password] = credentials.split(':');
  const nodes = (at >= 0 ? rest.slice(at + 1) : rest)
    .replace(/\/.*$/, '')
    .split(',')
    .map((seed) => {
      const parsed = new URL(`redis://${seed.trim()}`);
      if (!parsed.hostname) throw new Error(`no host in cluster seed "${seed}"`);
      return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 6379) };
    });
  return {
    tls: scheme === 'rediss',
    ...(user ? { username: decodeURIComponent(user) } : {}),
    ...(password !== undefined ? { password: decodeURIComponent(password) } : {}),
    nodes,
  };
}

/**
 * BullMQ workers need `maxRetriesPerRequest: null` (blocking commands must wait out a reconnect);
 * everything else fails fast so a request is never held up by a dead Redis.
 */
export function createRedis(
  url: string,
  options: {
    forWorker?: boolean;
    commandTimeoutMs?: number;
    /** REDIS_CA_FILE: the authority a rediss:// server's certificate must be signed by. */
    caFile?: string | undefined;
  } = {},
): RedisClient {
  const forWorker = options.forWorker ?? false;
  // ioredis verifies the server's certificate (and its name) against these, or the system's.
  const tls = options.caFile ? { ca: readFileSync(options.caFile) } : {};
  const perNode: RedisOptions = {
    maxRetriesPerRequest: forWorker ? null : 1,
    // A Redis that stops answering without closing the connection (frozen, host gone) must not
    // hold requests: each command gives up after this long.
    ...(forWorker ? {} : { commandTimeout: options.commandTimeoutMs ?? 500 }),
    // A connect that hangs (SYN to a frozen host) is abandoned and retried.
    connectTimeout: 2000,
  };
  // Commands issued in one event-loop tick share one socket write: under load, one syscall
  // carries the limiter calls of many requests (docs/decisions/0005).
  const enableAutoPipelining = !forWorker;
  const seeds = clusterSeedsOf(url);
  if (seeds) {
    return new Cluster(seeds.nodes, {
      redisOptions: {
        ...perNode,
        ...(seeds.tls ? { tls } : {}),
        ...(seeds.username ? { username: seeds.username } : {}),
        ...(seeds.password !== undefined ? { password: seeds.password } : {}),
      },
      enableOfflineQueue: forWorker,
      enableAutoPipelining,
      // A failover (a master gone, its replica promoted after cluster-node-timeout) answers
      // CLUSTERDOWN or refuses connections for a few seconds: the slot map is re-read quickly.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      slotsRefreshTimeout: 2000,
    });
  }
  return new Redis(url, {
    ...perNode,
    // A rediss:// URL turns TLS on; these options say whom to trust.
    ...(url.startsWith('rediss:') ? { tls } : {}),
    enableOfflineQueue: forWorker,
    lazyConnect: false,
    enableAutoPipelining,
  });
}
