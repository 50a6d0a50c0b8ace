// Sync health per table, from what the worker records in the read model: the source (polling or
// the binary log), how far behind each table is, its last complete pass and reconciliation, and
// the legacy rows set aside as rejects.
import type { Router } from 'express';
import type { Config } from '../../../../common/config.js';
import type { ReadModelClient } from '../../../../common/databases.js';
import { sendPage } from '../../pages/layout.js';
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

export function syncPage(router: Router, deps: { db: ReadModelClient; config: Config }): void {
  router.get(PAGE, async (req, res) => {
    const { tables, rejected, binlog } = await readHealth(deps.db);
    const now = Date.now();
    await sendPage(
      res,
      <ConsolePage req={req} title="Sync health" current={PAGE}>
        <dl class="secret facts">
          <dt>Source</dt>
          <dd safe>
            {deps.config.sync.source === 'binlog'
              ? 'binary log (polling every 30 s as a safety net)'
              : `polling every ${deps.config.sync.intervalMs} ms`}
          </dd>
          <dt>Binary log position</dt>
          <dd>
            {binlog ? `${binlog.file}:${binlog.position} at ${when(binlog.updated_at)}` : 'none'}
          </dd>
          <dt>Last verify, fallbacks</dt>
          <dd>
            Not recorded here: <code>npm run sync:verify</code> prints the differences, and the
            worker's metrics count fallbacks to polling.
          </dd>
        </dl>
        <div class="scroll">
          <table>
            <caption>Per table (times in UTC)</caption>
            <thead>
              <tr>
                <th scope="col">Table</th>
                <th scope="col">Up to date at</th>
                <th scope="col" class="num">
                  Lag
                </th>
                <th scope="col" class="num">
                  Rows synced
                </th>
                <th scope="col">Last reconciliation</th>
                <th scope="col" class="num">
                  Rejects
                </th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {tables.length === 0 ? (
                <tr>
                  <td colspan="7">No table has been synced yet: is the worker running?</td>
                </tr>
              ) : (
                ''
              )}
              {tables.map((t) => (
                <tr>
                  <td safe>{t.table_name}</td>
                  <td safe>{when(t.synced_at)}</td>
                  <td class="num" safe>
                    {ago(t.synced_at, now)}
                  </td>
                  <td class="num" safe>
                    {String(t.rows_synced)}
                  </td>
                  <td safe>{when(t.reconciled_at)}</td>
                  <td class="num" safe>
                    {String(rejected.get(t.table_name) ?? 0)}
                  </td>
                  <td>
                    {t.load_cursor !== null
                      ? 'first load'
                      : t.reconcile_cursor !== null
                        ? 'reconciling'
                        : 'following'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ConsolePage>,
    );
  });
}
