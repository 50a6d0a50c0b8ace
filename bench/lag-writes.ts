// The write side of the lag benchmark: paced legacy changes over several dashboard-style
// connections, each tagged with a marker, and a watcher noting when each marker shows in the
// read model.
import type { ReadModelClient } from '#common/databases.js';
import { LegacyDashboard } from '../test/support/legacy-dashboard.js';

export interface LagOptions {
  rate: number;
  seconds: number;
}

const CONNECTIONS = 4;
type Change = (d: LegacyDashboard, marker: string, n: number, live: number[]) => Promise<unknown>;

// Across tables: two updates (distinct rows, so no change hides another), two inserts. The
// generated dashboard numbers transactions from 1 with no gaps; members are picked among live ones.
const CHANGES: Change[] = [
  (d, marker, n, live) => d.query('UPDATE members SET address = ? WHERE id = ?', [marker, live[n]]),
  (d, marker, n) =>
    d.query('UPDATE financial_transactions SET description = ? WHERE id = ?', [marker, n + 1]),
  (d, marker) =>
    d.query(
      'INSERT INTO presence_logs (member_id, branch_id, entry_time, access_method) SELECT id, branch_id, NOW(), ? FROM members ORDER BY id LIMIT 1',
      [marker],
    ),
  (d, marker) =>
    d.insert('notifications', { branch_id: null, title: marker, message: 'lag', type: 'Bilgi' }),
];

async function seenMarkers(readModel: ReadModelClient): Promise<string[]> {
  const like = { startsWith: 'lag-' };
  const [members, transactions, presence, notifications] = await Promise.all([
    readModel.member.findMany({ where: { address: like }, select: { address: true } }),
    readModel.financialTransaction.findMany({
      where: { description: like },
      select: { description: true },
    }),
    readModel.presenceRecord.findMany({
      where: { access_method: like },
      select: { access_method: true },
    }),
    readModel.notification.findMany({ where: { title: like }, select: { title: true } }),
  ]);
  return [
    ...members.map((m) => m.address ?? ''),
    ...transactions.map((t) => t.description),
    ...presence.map((p) => p.access_method),
    ...notifications.map((n) => n.title),
  ];
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

export async function measureVisibility(
  legacyUrl: string,
  readModel: ReadModelClient,
  options: LagOptions,
) {
  const dashboards = await Promise.all(
    Array.from({ length: CONNECTIONS }, () => LegacyDashboard.connect(legacyUrl)),
  );
  const total = options.rate * options.seconds;
  const live = (
    await dashboards[0]!.query<{ id: number }>(
      'SELECT id FROM members WHERE is_deleted = 0 ORDER BY id LIMIT ?',
      [total],
    )
  ).map((r) => Number(r.id));
  const committedAt = new Map<string, number>();
  const seenAt = new Map<string, number>();
  let writing = true;
  let lastCommit = Date.now();
  const watcher = (async () => {
    const deadline = () => !writing && Date.now() - lastCommit > 30_000;
    while ((writing || seenAt.size < committedAt.size) && !deadline()) {
      const now = Date.now();
      for (const marker of await seenMarkers(readModel))
        if (!seenAt.has(marker)) seenAt.set(marker, now);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = Date.now();
  const writes: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / options.rate;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    const marker = `lag-${i}`;
    const change = CHANGES[i % CHANGES.length]!;
    writes.push(
      change(dashboards[i % CONNECTIONS]!, marker, Math.floor(i / CHANGES.length), live).then(
        () => {
          lastCommit = Date.now();
          committedAt.set(marker, lastCommit);
        },
      ),
    );
  }
  await Promise.all(writes);
  writing = false;
  await watcher;
  await Promise.all(dashboards.map((d) => d.close()));

  const lags = [...committedAt]
    .map(([m, at]) => (seenAt.get(m) ?? Infinity) - at)
    .sort((a, b) => a - b);
  const missing = lags.filter((l) => l === Infinity).length;
  const p50 = percentile(lags, 50);
  const p99 = percentile(lags, 99);
  console.log(
    `lag: ${committedAt.size} changes at ${options.rate}/s for ${options.seconds} s: commit-to-visible ` +
      `p50 ${p50} ms, p99 ${p99} ms, max ${lags.at(-1)} ms${missing ? `, ${missing} never seen` : ''}`,
  );
  return { p50, p99, max: lags.at(-1), missing, committedAt, seenAt };
}
