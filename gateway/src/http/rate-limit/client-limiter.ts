// One Redis round trip per request for all three windows and the client's authentication epoch:
// a Lua script, atomic, so a concurrent burst over any number of instances admits exactly the
// limit. All keys of one client share a hash tag. See docs/decisions/0004 and 0005.
import type { RedisClient } from '#common/redis.js';
import { clientKeyBase, epochKey, readAfterKey } from '../../trust/client-epochs.js';
import { WINDOW_NAMES, type WindowName, type WindowState } from './rate-limit-headers.js';

const WINDOW_MS: Record<WindowName, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

// KEYS: minute, hour, day counters, the epoch, then the position of the client's last member
// write (read-routing.ts). ARGV: the epoch the caller's token was loaded
// under ('*': read from PostgreSQL for this request alone, nothing to check), the three limits,
// the three window lengths in ms.
// Fixed windows that start at a client's first request (INCR, then PEXPIRE on the first hit).
// A request refused by one window is not counted in the later ones, which are only read, so
// its 429 can report them; refused requests keep counting in the refusing window.
// Answers {-1, epoch} when the epoch moved (nothing counted), else
// {refusing window (0 = admitted), epoch, used1, pttl1, used2, pttl2, used3, pttl3, written}.
const SCRIPT = `
local epoch = redis.call('GET', KEYS[4]) or ''
if ARGV[1] ~= '*' and epoch ~= ARGV[1] then return {-1, epoch} end
local answer = {0, epoch}
for i = 1, 3 do
  local used, ttl
  if answer[1] == 0 then
    used = redis.call('INCR', KEYS[i])
    ttl = redis.call('PTTL', KEYS[i])
    if ttl < 0 then
      ttl = tonumber(ARGV[4 + i])
      redis.call('PEXPIRE', KEYS[i], ttl)
    end
    if used > tonumber(ARGV[1 + i]) then answer[1] = i end
  else
    used = tonumber(redis.call('GET', KEYS[i]) or '0')
    ttl = redis.call('PTTL', KEYS[i])
    if ttl < 0 then ttl = tonumber(ARGV[4 + i]) end
  end
  answer[#answer + 1] = used
  answer[#answer + 1] = ttl
end
answer[#answer + 1] = redis.call('GET', KEYS[5]) or ''
return answer
`;

// KEYS: minute, hour, day counters. Reads them without counting: {used, pttl} per window.
const PEEK_SCRIPT = `
local answer = {}
for i = 1, 3 do
  answer[#answer + 1] = tonumber(redis.call('GET', KEYS[i]) or '0')
  answer[#answer + 1] = redis.call('PTTL', KEYS[i])
end
return answer
`;

export type Limits = Record<WindowName, number>;

export type LimiterOutcome =
  | { kind: 'stale'; epoch: string }
  | {
      kind: 'counted';
      refusedBy: WindowName | null;
      states: WindowState[];
      /** Where the client's own last member write is ('' none recent): reads must see it. */
      readAfter: string;
    };

type Reply = [number, string, ...(number | string)[]];

interface WithLimiterCommand {
  gatewayClientLimit(...args: (string | number)[]): Promise<Reply>;
  gatewayClientLimitPeek(...keys: string[]): Promise<number[]>;
}

export interface ClientLimiter {
  consume(clientId: number, limits: Limits, epoch: string): Promise<LimiterOutcome>;
  /** The client's windows as they stand, counting nothing (GET /usage's remaining counts). */
  peek(clientId: number, limits: Limits): Promise<WindowState[]>;
}

export function createClientLimiter(redis: RedisClient, prefix: string): ClientLimiter {
  // defineCommand sends EVALSHA and falls back to EVAL once after NOSCRIPT (a restarted Redis).
  if (!('gatewayClientLimit' in redis)) {
    redis.defineCommand('gatewayClientLimit', { numberOfKeys: 5, lua: SCRIPT });
    redis.defineCommand('gatewayClientLimitPeek', { numberOfKeys: 3, lua: PEEK_SCRIPT });
  }
  const command = redis as unknown as WithLimiterCommand;
  const windowKeys = (clientId: number) => {
    const base = clientKeyBase(prefix, clientId);
    return WINDOW_NAMES.map((name) => `${base}:rl:${name}`);
  };
  return {
    async peek(clientId, limits) {
      const reply = await command.gatewayClientLimitPeek(...windowKeys(clientId));
      const now = Date.now();
      return WINDOW_NAMES.map((name, i) => {
        const ttl = Number(reply[1 + 2 * i]);
        // A window with no key (never opened, or over) has nothing used.
        const live = ttl > 0;
        return {
          name,
          windowSeconds: WINDOW_MS[name] / 1000,
          limit: limits[name],
          used: live ? Number(reply[2 * i]) : 0,
          resetTime: new Date(now + (live ? ttl : WINDOW_MS[name])),
        };
      });
    },
    async consume(clientId, limits, epoch) {
      const reply = await command.gatewayClientLimit(
        ...windowKeys(clientId),
        epochKey(prefix, clientId),
        readAfterKey(prefix, clientId),
        epoch,
        ...WINDOW_NAMES.map((name) => limits[name]),
        ...WINDOW_NAMES.map((name) => WINDOW_MS[name]),
      );
      const [refusing, current] = reply;
      if (refusing === -1) return { kind: 'stale', epoch: current };
      const now = Date.now();
      const states = WINDOW_NAMES.map((name, i) => ({
        name,
        windowSeconds: WINDOW_MS[name] / 1000,
        limit: limits[name],
        used: Number(reply[2 + 2 * i]),
        resetTime: new Date(now + Number(reply[3 + 2 * i])),
      }));
      const readAfter = String(reply[2 + 2 * WINDOW_NAMES.length] ?? '');
      return { kind: 'counted', refusedBy: WINDOW_NAMES[refusing - 1] ?? null, states, readAfter };
    },
  };
}
