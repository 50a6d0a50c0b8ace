// The soak's dashboard, a process of its own (forked by bench/soak.ts): `rate` legacy changes a
// second over one connection of its own at Istanbul time, as the PHP dashboard writes
// (test/support/legacy-dashboard.ts): member updates and inserts, soft deletes of the members
// added since the start (the API's creates included), transaction updates, presence and
// notification inserts, and hard deletes of the oldest of those it added, so the dashboard's data
// keeps its size and what grows is what the API keeps. Each update and insert carries a marker,
// and a watcher notes when it shows in the read model: commit → visible, as bench/lag-writes.ts
// measures it. Reports to the parent over IPC every second.
//   node --import tsx bench/soak/legacy-writer.ts '<WriterOptions as JSON>'
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { istanbulDateTime, LegacyDashboard } from '../../test/support/legacy-dashboard.js';
import type { WriterMessage, WriterOptions } from './messages.js';

const options = JSON.parse(process.argv[2]!) as WriterOptions;
/**
 * Rows of each kind the writer added and keeps before deleting the oldest (a constant data size
 * from then on): 200 s of inserts, so that a row shows in the read model before it goes.
 */
const KEPT_ADDED = 400;
/** Live members above the generated ones (the writer's and the API's) kept before soft deletes. */
const KEPT_NEW_MEMBERS = 30;
/** A member inserted every this many changes: a few a minute, not a club's year in a day. */
const INSERT_MEMBER_EVERY = 100;

/** A marker waiting to show: read-model table, column, row. */
interface Pending {
  table: string;
  column: string;
  id: number;
  marker: string;
  committedAt: number;
}

const send = (message: WriterMessage) => process.send?.(message);
const pending = new Map<string, Pending>();
const lags: { at: number; ms: number; polled: boolean }[] = [];
let changes = 0;
let failures = 0;
let writing = true;

const dashboard = await LegacyDashboard.connect(options.legacyUrl);
const readModel = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
readModel.on('error', () => undefined);
const presenceAdded: number[] = [];
const notificationsAdded: number[] = [];
let n = 0;

function awaitMarker(table: string, column: string, id: number, marker: string) {
  // A newer marker on the same row replaces the older, which can no longer show.
  pending.set(`${table}:${id}`, { table, column, id, marker, committedAt: Date.now() });
}

/** A hard delete of the oldest row added, once there are more than KEPT_ADDED. */
async function deleteOldest(legacyTable: string, table: string, added: number[]) {
  if (added.length <= KEPT_ADDED) return;
  const id = added.shift()!;
  await dashboard.query(`DELETE FROM ${legacyTable} WHERE id = ?`, [id]);
  // Gone before it showed (an outage): it cannot show any more.
  pending.delete(`${table}:${id}`);
}

/** The next change of the cycle; each is one statement on the dashboard's connection. */
async function change(i: number): Promise<void> {
  const marker = `s-${i}`;
  const member = options.memberIds[i % options.memberIds.length]!;
  switch (i % 10) {
    case 0:
    case 4:
    case 9:
      await dashboard.update('members', member, { address: marker });
      return awaitMarker('members', 'address', member, marker);
    case 1: {
      const id = 1 + (i % options.transactionCount);
      await dashboard.update('financial_transactions', id, { description: marker });
      return awaitMarker('financial_transactions', 'description', id, marker);
    }
    case 2: {
      const id = await dashboard.insertPresence({
        member_id: member,
        branch_id: options.branchIds[i % options.branchIds.length]!,
        entry_time: istanbulDateTime(),
        access_method: marker,
      });
      presenceAdded.push(id);
      return awaitMarker('presence_records', 'access_method', id, marker);
    }
    case 3: {
      const id = await dashboard.insertNotification({ branch_id: null, title: marker });
      notificationsAdded.push(id);
      return awaitMarker('notifications', 'title', id, marker);
    }
    case 5: {
      if (i % INSERT_MEMBER_EVERY !== 5) {
        await dashboard.update('members', member, { address: marker });
        return awaitMarker('members', 'address', member, marker);
      }
      const id = await dashboard.insertMember({
        branch_id: options.branchIds[i % options.branchIds.length]!,
        full_name: 'Soak',
        address: marker,
      });
      return awaitMarker('members', 'address', id, marker);
    }
    case 6: {
      // The dashboard never DELETEs a member: it marks them, oldest first.
      const [row] = await dashboard.query<{ n: bigint }>(
        'SELECT COUNT(*) AS n FROM members WHERE is_deleted = 0 AND id > ?',
        [options.generatedMemberMax],
      );
      const excess = Number(row?.n ?? 0) - KEPT_NEW_MEMBERS;
      await dashboard.query(
        'UPDATE members SET is_deleted = 1 WHERE is_deleted = 0 AND id > ? ORDER BY id LIMIT ?',
        [options.generatedMemberMax, Math.max(0, Math.min(excess, 10))],
      );
      return;
    }
    case 7:
      return deleteOldest('presence_logs', 'presence_records', presenceAdded);
    default:
      // The dashboard deletes old notifications (its nightly job), here the oldest it added.
      return deleteOldest('notifications', 'notifications', notificationsAdded);
  }
}

/**
 * Notes the markers now visible; a failed read (PostgreSQL restarting) is tried next time. Once
 * the writing stops, the last markers get two reconciliation intervals to show.
 */
async function watch(): Promise<void> {
  let stoppedAt: number | undefined;
  while (writing || pending.size > 0) {
    if (!writing) stoppedAt ??= Date.now();
    if (stoppedAt !== undefined && Date.now() - stoppedAt > options.settleMs) break;
    const byTable = new Map<string, Pending[]>();
    for (const p of pending.values()) byTable.set(p.table, [...(byTable.get(p.table) ?? []), p]);
    for (const [table, waiting] of byTable) {
      const column = waiting[0]!.column;
      try {
        const { rows } = await readModel.query<{ id: number; v: string | null }>(
          `SELECT id, ${column} AS v FROM ${table} WHERE id = ANY($1::int[])`,
          [waiting.map((p) => p.id)],
        );
        const now = Date.now();
        const values = new Map(rows.map((r) => [Number(r.id), r.v]));
        for (const p of waiting) {
          if (values.get(p.id) !== p.marker) continue;
          // Notifications have no change column: only reconciliation brings them (0002).
          lags.push({ at: now, ms: now - p.committedAt, polled: table !== 'notifications' });
          pending.delete(`${table}:${p.id}`);
        }
      } catch {
        // Read again at the next turn.
      }
    }
    await sleep(50);
  }
}

const reporter = setInterval(() => {
  send({ kind: 'lags', lags: lags.splice(0), changes, failures });
}, 1000);

process.on('message', (message: { kind: string }) => {
  if (message.kind === 'stop') writing = false;
});

const watching = watch();
const started = Date.now();
while (writing) {
  const due = started + (n * 1000) / options.rate;
  await sleep(Math.max(0, due - Date.now()));
  try {
    await change(n);
    changes += 1;
  } catch {
    // MariaDB is not one of the faults: a failed change is counted and reported.
    failures += 1;
  }
  n += 1;
}
await watching;
clearInterval(reporter);
send({ kind: 'lags', lags: lags.splice(0), changes, failures });
send({ kind: 'stopped', changes, failures, unseen: pending.size });
await dashboard.close();
await readModel.end();
process.disconnect?.();
