// The operator audit, newest first: every operator action from the console and the CLIs
// (operators/operator-audit.ts), the same records `npm run audit -- --operator` prints.
import { z } from 'zod';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { text } from '../../pages/fields.js';
import { Filters, Typed } from '../../pages/filters.js';
import { At } from '../../pages/language.js';
import { pageWords } from '../../pages/page-words.js';
import { Heads } from '../../pages/tables.js';
import { definePage } from '../../page-services.js';
import { listOperatorActions } from '../operators/operator-audit.js';

const PAGE = `${CONSOLE}/audit`;
const SHOWN = 500;

const words = pageWords({
  en: {
    nav: 'Audit',
    title: 'Operator audit',
    none: 'No operator actions recorded.',
    caption: (n: number, max: number) => `The newest ${n} actions (at most ${max})`,
    heads: ['When (UTC)', 'Who', 'Through', 'From', 'Action', 'Client', 'Target'],
  },
  tr: {
    nav: 'Denetim kaydı',
    title: 'Operatör denetim kaydı',
    none: 'Kayıtlı operatör işlemi yok.',
    caption: (n, max) => `En yeni ${n} işlem (en fazla ${max})`,
    heads: ['Zaman (UTC)', 'Kim', 'Nereden', 'Adres', 'İşlem', 'İstemci', 'Hedef'],
  },
});

export const auditPage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: (language) => words(language).title,
  nav: (language) => words(language).nav,
  query: z.object({ client: text.catch(undefined) }),
  load: ({ services, query }) =>
    listOperatorActions(services.db, { clientKey: query.client, limit: SHOWN }),
  view: (rows, { query, t, format, locale }) => {
    const w = words({ locale });
    return (
      <>
        <Filters action={PAGE} button={t.common.filter}>
          <Typed label={t.common.clientKey} name="client" value={query.client} />
        </Filters>
        {rows.length === 0 ? (
          <p safe>{w.none}</p>
        ) : (
          <div class="scroll">
            <table>
              <caption safe>{w.caption(rows.length, SHOWN)}</caption>
              <Heads names={w.heads} />
              <tbody>
                {rows.map((row) => (
                  <tr>
                    <td>
                      <At at={row.at} text={format.utc(row.at)} />
                    </td>
                    <td safe>{row.actor}</td>
                    <td safe>{row.source}</td>
                    <td safe>{row.address ?? ''}</td>
                    <td safe>{row.action}</td>
                    <td>
                      <code safe>{row.client_key ?? ''}</code>
                    </td>
                    <td safe>{row.target ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </>
    );
  },
});
