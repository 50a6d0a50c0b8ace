// A member's erasure (docs/decisions/0023-data-classes.md, "Erasure"), for the CLI (`npm run
// members -- erase`) and the console alike. In order, each step safe to run again, so a retry
// after any failure completes the rest:
// 1. the receipt (member_erasures), before anything changes: whichever process first carries the
//    member's deletion into the change feed, the feed and webhooks already tell its recipients
//    of it as an erasure (op `erase`), never as a plain delete;
// 2. one legacy transaction through the gateway's write path (members.legacy.ts), all or none;
// 3. the read model at once, as a member write does: the member is deleted, its copies in other
//    tables (member names) take the erased values;
// 4. the gateway's own copies: stored webhook bodies about the member redacted in place (a replay
//    sends the erased form), member-write audit values and idempotent answers removed;
// 5. the receipt completed, and the operator audit.
import type { Cluster, Redis } from 'ioredis';
import { applyRowsNow } from '#read-model/apply-now.js';
import { membersTable } from '#read-model/tables/members.table.js';
import type { ReadModelClient } from '#common/databases.js';
import { readModelPool } from '#common/databases.js';
import type { RedisClient } from '#common/redis.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { recordOperatorAction, type Operator } from '../operators/operator-audit.js';
import type { GatewayLegacy } from './legacy-connection.js';
import { eraseLegacyMember, erasedValues } from './members.legacy.js';
import { recipientsOf } from './member-data.service.js';

export interface ErasureDeps {
  db: ReadModelClient;
  legacy: GatewayLegacy;
  redis: RedisClient;
  /** The deployment's Redis prefix, where idempotent answers are kept. */
  prefix: string;
}

export interface ErasureReceipt {
  member_id: number;
  erased_at: Date;
  /** The client keys told: the member's recipients. */
  notified: string[];
}

/** The receipt first: the feed and webhooks tell recipients of the erasure from then on. */
async function receiptOf(
  db: ReadModelClient,
  memberId: number,
  reason: string,
  actor: string,
): Promise<{ erased_at: Date; completed: boolean }> {
  const [member] = await db.$queryRaw<{ member_no: string }[]>`
    SELECT member_no FROM members WHERE id = ${memberId}`;
  await db.$executeRaw`
    INSERT INTO member_erasures (member_id, member_no, reason, actor)
    VALUES (${memberId}, ${member?.member_no ?? ''}, ${reason}, ${actor})
    ON CONFLICT (member_id) DO NOTHING`;
  const [receipt] = await db.$queryRaw<{ erased_at: Date; completed: boolean }[]>`
    SELECT erased_at, completed FROM member_erasures WHERE member_id = ${memberId}`;
  return receipt!;
}

/**
 * The stored webhook bodies about the member, redacted in place: a member's own events carry the
 * erased values, another resource's (a visit, a plan) the erased name.
 */
async function redactWebhookBodies(db: ReadModelClient, memberId: number): Promise<number> {
  const pool = readModelPool(db);
  const { rows } = await pool.query<{ id: string; body: string }>(
    `SELECT id::text, body FROM webhook_events
      WHERE (event_type LIKE 'members.%' AND (body::jsonb #>> '{data,id}')::int = $1)
         OR (body::jsonb #>> '{data,data,member_id}')::int = $1`,
    [memberId],
  );
  if (rows.length === 0) return 0;
  const erased = erasedValues(memberId);
  const redacted = rows.map(({ body }) => {
    const event = JSON.parse(body) as {
      data: { type: string; data: Record<string, unknown> | null };
    };
    const object = event.data.data;
    if (object && event.data.type === 'members') Object.assign(object, erased);
    else if (object && 'member_name' in object) object.member_name = erased.full_name;
    return JSON.stringify(event);
  });
  await pool.query(
    `UPDATE webhook_events e SET body = u.body
       FROM unnest($1::bigint[], $2::text[]) AS u(id, body) WHERE e.id = u.id`,
    [rows.map((r) => r.id), redacted],
  );
  return rows.length;
}

/** Every key of `pattern` on one server, or on every master of a cluster. */
async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const servers: (Redis | Cluster)[] =
    'nodes' in redis && typeof redis.nodes === 'function' ? redis.nodes('master') : [redis];
  const keys: string[] = [];
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, found] = await (server as Redis).scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
  }
  return keys;
}

/** Idempotent answers (24 hours, members/idempotency.ts) that carry the member, deleted. */
async function forgetIdempotentAnswers(deps: ErasureDeps, memberId: number): Promise<number> {
  let forgotten = 0;
  for (const key of await keysMatching(deps.redis, `${deps.prefix}:idem:*`)) {
    const stored = await deps.redis.get(key);
    const entry = stored
      ? (JSON.parse(stored) as { answer?: { body?: { data?: { id?: unknown } } } })
      : null;
    if (entry?.answer?.body?.data?.id === memberId) forgotten += await deps.redis.del(key);
  }
  return forgotten;
}

export async function eraseAs(
  deps: ErasureDeps,
  operator: Operator,
  memberId: number,
  reason: string | undefined,
): Promise<ErasureReceipt> {
  const why = reason?.trim();
  if (!why)
    throw new OperatorRefusal('erase needs --reason TEXT: why the member is erased', 2, {
      reason: { key: 'reason-needed' },
    });
  const [done] = await deps.db.$queryRaw<{ erased_at: Date }[]>`
    SELECT erased_at FROM member_erasures WHERE member_id = ${memberId} AND completed`;
  if (done)
    throw new OperatorRefusal(
      `member ${memberId} was already erased at ${done.erased_at.toISOString()}`,
      1,
      { reason: { key: 'already-erased', id: memberId, at: done.erased_at } },
    );
  const receipt = await receiptOf(deps.db, memberId, why, operator.actor);
  const erased = await eraseLegacyMember(deps.legacy, memberId);
  if (!erased) {
    await deps.db.$executeRaw`
      DELETE FROM member_erasures WHERE member_id = ${memberId} AND NOT completed`;
    throw new OperatorRefusal(`no member with id ${memberId}`, 1, {
      reason: { key: 'no-member', id: memberId },
    });
  }
  await applyRowsNow(deps.db, membersTable, [erased.after]);
  await redactWebhookBodies(deps.db, memberId);
  await deps.db.$executeRaw`
    UPDATE member_write_audit SET before = NULL, after = NULL WHERE member_id = ${memberId}`;
  await forgetIdempotentAnswers(deps, memberId);
  const notified = (await recipientsOf(deps.db, memberId)).map((r) => r.client_key);
  await deps.db.$executeRaw`
    UPDATE member_erasures SET completed = true,
           member_no = COALESCE(NULLIF(member_no, ''), ${String((erased.after.member_no as string | null) ?? '')})
     WHERE member_id = ${memberId}`;
  await recordOperatorAction(deps.db, operator, 'members.erase', {
    target: `member ${memberId}: ${why}`,
  });
  return { member_id: memberId, erased_at: receipt.erased_at, notified };
}
