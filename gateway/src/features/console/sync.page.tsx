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
import { At } from '../../pages/language.js';
import type { Format } from '../../pages/locale.js';
import type { Messages } from '../../pages/messages/index.js';
import { Heads } from '../../pages/tables.js';
import { definePage } from '../../page-services.js';

const PAGE = `${CONSOLE}/sync`;

interface Words {
  t: Messages;
  format: Format;
}

/** A moment in UTC (the table's caption says so), or `never`. */
function When(props: Words & { at: Date | null | undefined }) {
  const { at, format } = props;
  return at ? <At at={at} text={format.utc(at)} /> : <span safe>{props.t.common.never}</span>;
}

/** How long ago, in words an operator reads at a glance. */
function ago(at: Date | null | undefined, now: number, format: Format): string {
  if (!at) return '—';
  return format.duration(Math.max(0, Math.round((now - at.getTime()) / 1000)));
}

type SyncStateRow = SyncHealth['tables'][number];

function Facts(props: Words & { config: Config; binlog: SyncHealth['binlog'] }) {
  const { config, binlog, t, format } = props;
  const w = t.sync;
  return (
    <dl class="secret facts">
      <dt safe>{w.source}</dt>
      <dd safe>
        {config.sync.source === 'binlog'
          ? w.binlogSource(format.number(SAFETY_NET_POLL_MS / 1000))
          : w.pollingSource(format.number(config.sync.intervalMs))}
      </dd>
      <dt safe>{w.position}</dt>
      <dd safe>
        {binlog
          ? w.positionAt(`${binlog.file}:${binlog.position}`, format.utc(binlog.updated_at))
          : t.common.none}
      </dd>
      <dt safe>{w.fallbacks}</dt>
      <dd safe>
        {binlog && binlog.fallbacks > 0
          ? w.fallbacksLast(
              format.number(binlog.fallbacks),
              binlog.fell_back_at ? format.utc(binlog.fell_back_at) : t.common.never,
            )
          : t.common.none}
      </dd>
      <dt safe>{w.stale}</dt>
      <dd safe>{w.staleMeans(STALE_AFTER_PASSES)}</dd>
    </dl>
  );
}

function stateOf(row: SyncStateRow, stale: boolean, t: Messages): string {
  const { states } = t.sync;
  if (row.load_cursor !== null) return states.load;
  if (stale) return states.stale;
  return row.reconcile_cursor !== null ? states.reconciling : states.following;
}

function LastVerify(props: Words & { row: SyncStateRow }) {
  const { row, t, format } = props;
  if (!row.verified_at) return <span safe>{t.common.never}</span>;
  return (
    <span safe>{t.sync.verified(format.utc(row.verified_at), row.verify_differences ?? 0)}</span>
  );
}

function TableRow(
  props: Words & {
    row: SyncStateRow;
    rejects: number;
    source: string;
    stale: boolean;
    now: number;
  },
) {
  const { row, stale, now, t, format } = props;
  const state = stateOf(row, stale, t);
  return (
    <tr data-table={row.table_name} class={stale ? 'stale' : undefined}>
      <td safe>{row.table_name}</td>
      <td safe>{props.source}</td>
      <td>{stale ? <strong safe>{state}</strong> : <span safe>{state}</span>}</td>
      <td class="num" safe>
        {ago(row.synced_at, now, format)}
      </td>
      <td>
        <When at={row.synced_at} t={t} format={format} />
      </td>
      <td class="num" safe>
        {format.number(row.rows_synced)}
      </td>
      <td>
        <When at={row.reconciled_at} t={t} format={format} />
      </td>
      <td class="num" safe>
        {format.number(props.rejects)}
      </td>
      <td>
        <LastVerify row={row} t={t} format={format} />
      </td>
    </tr>
  );
}

export const syncPage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: ({ t }) => t.sync.title,
  nav: ({ t }) => t.nav.sync,
  load: async ({ services }) => ({ ...(await readSyncHealth(services.db)), now: Date.now() }),
  view: ({ tables, rejected, binlog, now }, { services: { config }, t, format }) => {
    const passMs = passIntervalMs(config.sync.source, config.sync.intervalMs);
    const source = config.sync.source === 'binlog' ? t.sync.binlog : t.sync.poll;
    const heads = t.sync.heads;
    return (
      <>
        <Facts config={config} binlog={binlog} t={t} format={format} />
        <div class="scroll">
          <table id="sync-tables">
            <caption safe>{t.sync.caption}</caption>
            <Heads names={heads} numeric={[heads[3]!, heads[5]!, heads[7]!]} />
            <tbody>
              {tables.length === 0 ? (
                <tr>
                  <td colspan="9" safe>
                    {t.sync.noTables}
                  </td>
                </tr>
              ) : (
                ''
              )}
              {tables.map((row) => (
                <TableRow
                  row={row}
                  rejects={rejected.get(row.table_name) ?? 0}
                  source={source}
                  stale={isStale(row.synced_at, now, passMs)}
                  now={now}
                  t={t}
                  format={format}
                />
              ))}
            </tbody>
          </table>
        </div>
      </>
    );
  },
});
