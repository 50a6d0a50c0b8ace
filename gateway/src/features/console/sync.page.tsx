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
import { plural } from '../../pages/messages/en/shared.js';
import type { Messages } from '../../pages/messages/index.js';
import { pageWords } from '../../pages/page-words.js';
import { Heads } from '../../pages/tables.js';
import { definePage } from '../../page-services.js';

const PAGE = `${CONSOLE}/sync`;

const words = pageWords({
  en: {
    nav: 'Sync health',
    title: 'Sync health',
    source: 'Source',
    binlogSource: (seconds: string) => `binary log (polling every ${seconds} s as a safety net)`,
    pollingSource: (ms: string) => `polling every ${ms} ms`,
    position: 'Binary log position',
    positionAt: (position: string, at: string) => `${position} at ${at}`,
    fallbacks: 'Fallbacks to polling',
    fallbacksLast: (n: string, at: string) => `${n}, the last at ${at}`,
    stale: 'Stale',
    staleMeans: (n: number) => `A table not brought up to date for ${n} of its intervals.`,
    states: {
      load: 'first load',
      stale: 'stale',
      reconciling: 'reconciling',
      following: 'following',
    },
    verified: (at: string, n: number) => `${at}: ${n} ${plural(n, 'difference', 'differences')}`,
    binlog: 'binary log',
    poll: 'poll',
    caption: 'Per table (times in UTC)',
    heads: [
      'Table',
      'Source',
      'State',
      'Lag',
      'Last pass',
      'Rows synced',
      'Last reconciliation',
      'Rejects',
      'Last verify',
    ],
    noTables: 'No table has been synced yet: is the worker running?',
  },
  tr: {
    nav: 'Eşitleme durumu',
    title: 'Eşitleme durumu',
    source: 'Kaynak',
    binlogSource: (seconds) =>
      `ikili günlük (güvenlik ağı olarak her ${seconds} sn’de bir yoklama)`,
    pollingSource: (ms) => `her ${ms} ms’de bir yoklama`,
    position: 'İkili günlük konumu',
    positionAt: (position, at) => `${position}, ${at}`,
    fallbacks: 'Yoklamaya dönüşler',
    fallbacksLast: (n, at) => `${n}, sonuncusu ${at}`,
    stale: 'Gecikmiş',
    staleMeans: (n) => `${n} aralığı boyunca güncellenmemiş tablo.`,
    states: {
      load: 'ilk yükleme',
      stale: 'gecikmiş',
      reconciling: 'uzlaştırılıyor',
      following: 'izleniyor',
    },
    verified: (at, n) => `${at}: ${n} fark`,
    binlog: 'ikili günlük',
    poll: 'yoklama',
    caption: 'Tablo başına (saatler UTC)',
    heads: [
      'Tablo',
      'Kaynak',
      'Durum',
      'Gecikme',
      'Son geçiş',
      'Eşitlenen satır',
      'Son uzlaştırma',
      'Reddedilenler',
      'Son doğrulama',
    ],
    noTables: 'Henüz hiçbir tablo eşitlenmedi: worker çalışıyor mu?',
  },
});

/** The page's words in the request's language. */
type OwnWords = ReturnType<typeof words>;

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

function Facts(props: Words & { w: OwnWords; config: Config; binlog: SyncHealth['binlog'] }) {
  const { config, binlog, t, w, format } = props;
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

function stateOf(row: SyncStateRow, stale: boolean, w: OwnWords): string {
  const { states } = w;
  if (row.load_cursor !== null) return states.load;
  if (stale) return states.stale;
  return row.reconcile_cursor !== null ? states.reconciling : states.following;
}

function LastVerify(props: Words & { w: OwnWords; row: SyncStateRow }) {
  const { row, t, w, format } = props;
  if (!row.verified_at) return <span safe>{t.common.never}</span>;
  return <span safe>{w.verified(format.utc(row.verified_at), row.verify_differences ?? 0)}</span>;
}

function TableRow(
  props: Words & {
    w: OwnWords;
    row: SyncStateRow;
    rejects: number;
    source: string;
    stale: boolean;
    now: number;
  },
) {
  const { row, stale, now, t, w, format } = props;
  const state = stateOf(row, stale, w);
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
        <LastVerify row={row} t={t} w={w} format={format} />
      </td>
    </tr>
  );
}

export const syncPage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: (language) => words(language).title,
  nav: (language) => words(language).nav,
  load: async ({ services }) => ({ ...(await readSyncHealth(services.db)), now: Date.now() }),
  view: ({ tables, rejected, binlog, now }, { services: { config }, t, format, locale }) => {
    const w = words({ locale });
    const passMs = passIntervalMs(config.sync.source, config.sync.intervalMs);
    const source = config.sync.source === 'binlog' ? w.binlog : w.poll;
    const heads = w.heads;
    return (
      <>
        <Facts config={config} binlog={binlog} t={t} w={w} format={format} />
        <div class="scroll">
          <table id="sync-tables">
            <caption safe>{w.caption}</caption>
            <Heads names={heads} numeric={[heads[3]!, heads[5]!, heads[7]!]} />
            <tbody>
              {tables.length === 0 ? (
                <tr>
                  <td colspan="9" safe>
                    {w.noTables}
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
                  w={w}
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
