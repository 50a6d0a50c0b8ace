// Sync health per table, from what the worker records in the read model: the source (polling or
// the binary log), how far behind each table is and whether it is stale, its last complete pass
// and reconciliation, the legacy rows set aside as rejects, the last `npm run sync:verify`, and
// the binary log's fallbacks to polling.
import type { Router } from 'express';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import { sendPage } from '../../pages/layout.js';
import {
  isStale,
  passIntervalMs,
  SAFETY_NET_POLL_MS,
  STALE_AFTER_PASSES,
} from '#read-model/sync-health.js';
import { CONSOLE, ConsolePage } from './console-page.js';

const PAGE = `${CONSOLE}/sync`;

const when = (at: Date | null | undefined) =>
  at ? at.toISOString().replace('T', ' ').slice(0, 19) : 'never';

/** How long ago, in words an operator reads at a glance. */
function ago(at: Date | null | undefined, now: number): string {
  if (!at) return '—';
  const s = Math.max(0, Math.round((now - at.getTime()) / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

async function readHealth(db: ReadModelClient) {
  const [tables, rejects, binlog] = await Promise.all([
    db.syncState.findMany({ orderBy: { table_name: 'asc' } }),
    db.syncReject.groupBy({
      by: ['table_name'],
      _count: { _all: true },
      _max: { last_seen_at: true },
    }),
    db.binlogPosition.findUnique({ where: { id: 1 } }),
  ]);
  const rejected = new Map(rejects.map((r) => [r.table_name, r._count._all]));
  return { tables, rejected, binlog };
}

type SyncStateRow = Awaited<ReturnType<typeof readHealth>>['tables'][number];

function Facts(props: {
  config: Config;
  binlog: Awaited<ReturnType<typeof readHealth>>['binlog'];
}) {
  const { config, binlog } = props;
  return (
    <dl class="secret facts">
      <dt>Source</dt>
      <dd safe>
        {config.sync.source === 'binlog'
          ? `binary log (polling every ${SAFETY_NET_POLL_MS / 1000} s as a safety net)`
          : `polling every ${config.sync.intervalMs} ms`}
      </dd>
      <dt>Binary log position</dt>
      <dd>{binlog ? `${binlog.file}:${binlog.position} at ${when(binlog.updated_at)}` : 'none'}</dd>
      <dt>Fallbacks to polling</dt>
      <dd>
        {binlog && binlog.fallbacks > 0
          ? `${binlog.fallbacks}, the last at ${when(binlog.fell_back_at)}`
          : 'none'}
      </dd>
      <dt>Stale</dt>
      <dd>{`A table not brought up to date for ${STALE_AFTER_PASSES} of its intervals.`}</dd>
    </dl>
  );
}

function stateOf(t: SyncStateRow, stale: boolean): string {
  if (t.load_cursor !== null) return 'first load';
  if (stale) return 'stale';
  return t.reconcile_cursor !== null ? 'reconciling' : 'following';
}

function lastVerify(t: SyncStateRow): string {
  if (!t.verified_at) return 'never';
  const found = t.verify_differences ?? 0;
  return `${when(t.verified_at)}: ${found} difference${found === 1 ? '' : 's'}`;
}

export function syncPage(router: Router, deps: { db: ReadModelClient; config: Config }): void {
  const { source, intervalMs } = deps.config.sync;
  const passMs = passIntervalMs(source, intervalMs);
  const sourceText = source === 'binlog' ? 'binary log' : 'poll';
  router.get(PAGE, async (req, res) => {
    const { tables, rejected, binlog } = await readHealth(deps.db);
    const now = Date.now();
    await sendPage(
      res,
      <ConsolePage req={req} title="Sync health" current={PAGE}>
        <Facts config={deps.config} binlog={binlog} />
        <div class="scroll">
          <table id="sync-tables">
            <caption>Per table (times in UTC)</caption>
            <thead>
              <tr>
                <th scope="col">Table</th>
                <th scope="col">Source</th>
                <th scope="col">State</th>
                <th scope="col" class="num">
                  Lag
                </th>
                <th scope="col">Last pass</th>
                <th scope="col" class="num">
                  Rows synced
                </th>
                <th scope="col">Last reconciliation</th>
                <th scope="col" class="num">
                  Rejects
                </th>
                <th scope="col">Last verify</th>
              </tr>
            </thead>
            <tbody>
              {tables.length === 0 ? (
                <tr>
                  <td colspan="9">No table has been synced yet: is the worker running?</td>
                </tr>
              ) : (
                ''
              )}
              {tables.map((t) => {
                const stale = isStale(t.synced_at, now, passMs);
                return (
                  <tr data-table={t.table_name} class={stale ? 'stale' : undefined}>
                    <td safe>{t.table_name}</td>
                    <td>{sourceText}</td>
                    <td>
                      {stale ? (
                        <strong safe>{stateOf(t, stale)}</strong>
                      ) : (
                        <span safe>{stateOf(t, stale)}</span>
                      )}
                    </td>
                    <td class="num" safe>
                      {ago(t.synced_at, now)}
                    </td>
                    <td safe>{when(t.synced_at)}</td>
                    <td class="num" safe>
                      {String(t.rows_synced)}
                    </td>
                    <td safe>{when(t.reconciled_at)}</td>
                    <td class="num" safe>
                      {String(rejected.get(t.table_name) ?? 0)}
                    </td>
                    <td safe>{lastVerify(t)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </ConsolePage>,
    );
  });
}
