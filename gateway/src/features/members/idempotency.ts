// Idempotency-Key on POST /members (draft-ietf-httpapi-idempotency-key-header), kept in Redis so
// every gateway instance shares it. A key belongs to one API client and lives 24 hours. The
// first request claims it ("running"); its final answer replaces the claim ("done") and is
// replayed to retries carrying the same body. A refusal (an error answer) wrote nothing and is
// not kept: it releases the claim, so a retry is judged afresh.
import { hash, randomUUID } from 'node:crypto';
import type { RedisClient } from '#common/redis.js';
import { AppError, serviceUnavailable, validationError } from '../../http/errors.js';
import { isDependencyDown } from '../../http/error-handler.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const KEPT_MS = 24 * 60 * 60 * 1000;
/** How long a claim outlives a crashed instance; writes give up well before (8 s). */
const CLAIM_MS = 60 * 1000;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

type Entry =
  | { state: 'running'; fingerprint: string; token: string }
  | { state: 'done'; fingerprint: string; answer: StoredAnswer };

/** The header's value, bare or as a structured-field string (`"abc"`); undefined when absent. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = /^"(.*)"$/.exec(header.trim())?.[1] ?? header.trim();
  if (key.length === 0 || key.length > 255) {
    throw validationError([
      { field: IDEMPOTENCY_HEADER, message: 'Anahtar 1-255 karakter olmalı.' },
    ]);
  }
  return key;
}

/** A canonical JSON (object keys sorted), so key order never makes two bodies differ. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (text: string) => hash('sha256', text, 'hex');

export function createIdempotencyStore(redis: RedisClient, prefix: string) {
  const redisKey = (clientId: number, key: string) => `${prefix}:idem:${clientId}:${sha256(key)}`;

  async function guarded<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (isDependencyDown(error)) throw serviceUnavailable(2);
      throw error;
    }
  }

  return {
    /**
     * Runs `produce` once per (client, key, body): replays a finished answer, refuses a
     * different body (400) and a retry while the first still runs (409, Retry-After: 1).
     */
    run(
      clientId: number,
      key: string,
      body: unknown,
      produce: () => Promise<StoredAnswer>,
    ): Promise<StoredAnswer> {
      return guarded(async () => {
        const id = redisKey(clientId, key);
        const fingerprint = sha256(canonical(body));
        const token = randomUUID();
        const claim: Entry = { state: 'running', fingerprint, token };
        const claimed = await redis.set(id, JSON.stringify(claim), 'PX', CLAIM_MS, 'NX');
        if (claimed !== 'OK') return earlier(await redis.get(id), fingerprint);
        let answer: StoredAnswer;
        try {
          answer = await produce();
        } catch (error) {
          await releaseClaim(id, token);
          throw error;
        }
        const done: Entry = { state: 'done', fingerprint, answer };
        await redis.set(id, JSON.stringify(done), 'PX', KEPT_MS);
        return answer;
      });
    },
  };

  async function releaseClaim(id: string, token: string) {
    const current = await redis.get(id).catch(() => null);
    if (current && (JSON.parse(current) as Entry & { token?: string }).token === token) {
      await redis.del(id).catch(() => undefined);
    }
  }
}

function earlier(stored: string | null, fingerprint: string): StoredAnswer {
  // Gone between SET NX and GET: the claim just expired; the caller simply retries.
  const entry = stored ? (JSON.parse(stored) as Entry) : null;
  if (entry && entry.fingerprint !== fingerprint) {
    throw validationError(
      [{ field: IDEMPOTENCY_HEADER, message: 'Bu anahtar başka bir istek gövdesiyle kullanıldı.' }],
      'Idempotency-Key başka bir istekle kullanılmış.',
    );
  }
  if (entry?.state === 'done') return entry.answer;
  throw new AppError({
    status: 409,
    code: 'DUPLICATE',
    message: 'Aynı anahtarlı istek hâlâ işleniyor.',
    retryAfter: 1,
  });
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
