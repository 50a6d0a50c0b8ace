// Sync health per table, from what the worker records in the read model: the source (polling or
// the binary log), how far behind each table is and whether it is stale, its last complete pass
// and reconciliation, the legacy rows set aside as rejects, the last `npm run sync:verify`, and
// the binary log's fallbacks to polling.
import type { Config } from '#common/config.js';
import {
  isStale,
  passIntervalMs,
  readSyncHealth,
  SAFETY_NET_POLL_MS,
  STALE_AFTER_PASSES,
  type SyncHealth,
} from '#read-model/sync-health.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { Heads } from '../../pages/tables.js';
import { definePage } from '../../page-services.js';

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

type SyncStateRow = SyncHealth['tables'][number];

function Facts(props: { config: Config; binlog: SyncHealth['binlog'] }) {
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

function TableRow(props: {
  t: SyncStateRow;
  rejects: number;
  source: string;
  stale: boolean;
  now: number;
}) {
  const { t, stale, now } = props;
  return (
    <tr data-table={t.table_name} class={stale ? 'stale' : undefined}>
      <td safe>{t.table_name}</td>
      <td safe>{props.source}</td>
      <td>
        {stale ? <strong safe>{stateOf(t, stale)}</strong> : <span safe>{stateOf(t, stale)}</span>}
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
        {String(props.rejects)}
      </td>
      <td safe>{lastVerify(t)}</td>
    </tr>
  );
}

export const syncPage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: 'Sync health',
  load: async ({ services }) => ({ ...(await readSyncHealth(services.db)), now: Date.now() }),
  view: ({ tables, rejected, binlog, now }, { services: { config } }) => {
    const passMs = passIntervalMs(config.sync.source, config.sync.intervalMs);
    const source = config.sync.source === 'binlog' ? 'binary log' : 'poll';
    return (
      <>
        <Facts config={config} binlog={binlog} />
        <div class="scroll">
          <table id="sync-tables">
            <caption>Per table (times in UTC)</caption>
            <Heads
              names={[
                'Table',
                'Source',
                'State',
                'Lag',
                'Last pass',
                'Rows synced',
                'Last reconciliation',
                'Rejects',
                'Last verify',
              ]}
              numeric={['Lag', 'Rows synced', 'Rejects']}
            />
            <tbody>
              {tables.length === 0 ? (
                <tr>
                  <td colspan="9">No table has been synced yet: is the worker running?</td>
                </tr>
              ) : (
                ''
              )}
              {tables.map((t) => (
                <TableRow
                  t={t}
                  rejects={rejected.get(t.table_name) ?? 0}
                  source={source}
                  stale={isStale(t.synced_at, now, passMs)}
                  now={now}
                />
              ))}
            </tbody>
          </table>
        </div>
      </>
    );
  },
});
