// Per-client authentication epochs in Redis. Every change that can make a client's cached token
// wrong (revocation, rotation, reuse detection, disabling, new scopes or limits) replaces the
// client's epoch before the call that made it answers; every request compares the epoch its cached
// token was loaded under with the current one in the same Lua call that counts its rate limits
// (client-limiter.ts), so an instance that cached the token reloads it from PostgreSQL on its
// very next request. Random values rather than a counter: a Redis that lost the key and counted
// again from zero could otherwise hand an old number back. See docs/decisions/0005.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '#common/redis.js';

/** The hash tag all of a client's keys share, so its Lua call also runs on Redis Cluster. */
export const clientKeyBase = (prefix: string, clientId: number) => `${prefix}:{client:${clientId}}`;
export const epochKey = (prefix: string, clientId: number) =>
  `${clientKeyBase(prefix, clientId)}:auth-epoch`;
/** The position of the client's last member write, for reads on replicas (read-routing.ts). */
export const readAfterKey = (prefix: string, clientId: number) =>
  `${clientKeyBase(prefix, clientId)}:read-after`;

export interface ClientEpochs {
  keyOf(clientId: number): string;
  /** The current epoch; '' while the client has never had one. */
  current(clientId: number): Promise<string>;
  /** Invalidates every instance's cached tokens of the client. */
  bump(clientId: number): Promise<void>;
}

export function createClientEpochs(redis: RedisClient, prefix: string): ClientEpochs {
  const keyOf = (clientId: number) => epochKey(prefix, clientId);
  return {
    keyOf,
    async current(clientId) {
      return (await redis.get(keyOf(clientId))) ?? '';
    },
    async bump(clientId) {
      await redis.set(keyOf(clientId), randomUUID());
    },
  };
}
