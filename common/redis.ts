import { Redis } from 'ioredis';

/**
 * BullMQ workers need `maxRetriesPerRequest: null` (blocking commands must wait out a reconnect);
 * everything else fails fast so a request is never held up by a dead Redis.
 */
export function createRedis(url: string, options: { forWorker?: boolean } = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: options.forWorker ? null : 1,
    enableOfflineQueue: options.forWorker ?? false,
    // A Redis that stops answering without closing the connection must not hold requests.
    ...(options.forWorker ? {} : { commandTimeout: 2000 }),
    lazyConnect: false,
  });
}
