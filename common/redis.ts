import { Redis } from 'ioredis';

/**
 * BullMQ workers need `maxRetriesPerRequest: null` (blocking commands must wait out a reconnect);
 * everything else fails fast so a request is never held up by a dead Redis.
 */
export function createRedis(
  url: string,
  options: { forWorker?: boolean; commandTimeoutMs?: number } = {},
): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: options.forWorker ? null : 1,
    enableOfflineQueue: options.forWorker ?? false,
    // A Redis that stops answering without closing the connection (frozen, host gone) must not
    // hold requests: each command gives up after this long.
    ...(options.forWorker ? {} : { commandTimeout: options.commandTimeoutMs ?? 500 }),
    // A connect that hangs (SYN to a frozen host) is abandoned and retried.
    connectTimeout: 2000,
    lazyConnect: false,
    // Commands issued in one event-loop tick share one socket write: under load, one syscall
    // carries the limiter calls of many requests (docs/decisions/0005).
    enableAutoPipelining: !options.forWorker,
  });
}
