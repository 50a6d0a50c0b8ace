// A member's page for the operator (docs/decisions/0023-data-classes.md): found by id or member
// number, what the gateway holds about it and who received which classes (`npm run members --
// report`), and its erasure with a typed confirmation and a reason (`npm run members -- erase`),
// through the same services, each recorded in the operator audit.
import { escapeHtml } from '@kitajs/html';
import { z } from 'zod';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { positiveId, trimmed } from '../../pages/fields.js';
import { Filters } from '../../pages/filters.js';
import { Field, FormSection } from '../../pages/form-parts.js';
import { At } from '../../pages/language.js';
import { Notice } from '../../pages/layout.js';
import type { Format } from '../../pages/locale.js';
import type { Messages } from '../../pages/messages/index.js';
import { Heads } from '../../pages/tables.js';
import { consoleAction, definePage } from '../../page-services.js';
import { eraseAs } from '../members/erasure.service.js';
import { findReportAs } from '../members/member-data.service.js';

const PAGE = `${CONSOLE}/members`;

type Report = NonNullable<Awaited<ReturnType<typeof findReportAs>>>;

function ReportView(props: { report: Report; t: Messages; format: Format }) {
  const { report, format } = props;
  const w = props.t.members;
  const id = report.member_id;
  return (
    <>
      <h2 safe>{w.held}</h2>
      {report.member ? (
        <table>
          <caption safe>{w.asShown(id)}</caption>
          <tbody>
            {Object.entries(report.member).map(([field, value]) => (
              <tr>
                <th scope="row" safe>
                  {field}
                </th>
                <td safe>{value === null ? '' : String(value as string | number | boolean)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p safe>{w.gone}</p>
      )}
      <p safe>
        {w.kept(
          format.number(report.kept.webhook_events),
          format.number(report.kept.member_write_audit),
        )}
      </p>
      <h2 safe>{w.recipients}</h2>
      {report.recipients.length === 0 ? (
        <p safe>{w.noRecipient}</p>
      ) : (
        <table>
          <caption safe>{w.recipientsCaption}</caption>
          <Heads names={w.recipientHeads} />
          <tbody>
            {report.recipients.map((r) => (
              <tr>
                <td>
                  <code safe>{r.client_key}</code>
                </td>
                <td safe>{r.classes.join(', ')}</td>
                <td>
                  <At at={r.first_at} text={format.utc(r.first_at)} />
                </td>
                <td>
                  <At at={r.last_at} text={format.utc(r.last_at)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.member ? <EraseForm id={id} t={props.t} /> : ''}
    </>
  );
}

function EraseForm(props: { id: number; t: Messages }) {
  const { id } = props;
  const w = props.t.members;
  return (
    <FormSection id="erase" heading={w.erase} hint={w.eraseText} action={`${PAGE}/${id}/erase`}>
      <Field id="reason" label={w.reason} required maxlength="500" autocomplete="off" />
      <Field id="confirm" label={w.confirm(id)} required inputmode="numeric" autocomplete="off" />
      <button type="submit" class="warn" aria-describedby="erase-hint" safe>
        {w.eraseButton(id)}
      </button>
    </FormSection>
  );
}

export const membersPage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: ({ t }) => t.members.title,
  nav: ({ t }) => t.nav.members,
  query: z.object({ q: trimmed.catch('') }),
  load: async ({ services, who, query: { q } }) => ({
    report: q ? await findReportAs(services.db, who, q) : null,
  }),
  view: ({ report }, { query: { q }, outcome, t, format }) => (
    <>
      <Filters action={PAGE} button={t.members.find}>
        <label>
          {escapeHtml(t.members.idOrNumber)}
          <input name="q" value={q} required />
        </label>
      </Filters>
      {q && !report && !outcome ? (
        <Notice kind="error">
          <span safe>{t.members.noMember(q)}</span>
        </Notice>
      ) : (
        ''
      )}
      {report ? <ReportView report={report} t={t} format={format} /> : ''}
    </>
  ),
  actions: [
    consoleAction({
      path: '/:id/erase',
      params: z.object({ id: positiveId }),
      body: z.object({ confirm: trimmed, reason: trimmed }),
      shows: ({ id }) => ({ q: String(id) }),
      run: async ({ services, who, params: { id }, body, t, format }) => {
        // Worded here, in the page's language: the refusal shows its message as it is.
        if (body.confirm !== String(id)) throw new OperatorRefusal(t.members.notConfirmed(id));
        const receipt = await eraseAs(services, who, id, body.reason);
        const told = receipt.notified.length > 0 ? receipt.notified.join(', ') : t.members.noClient;
        return {
          kind: 'done',
          message: t.members.erased(id, format.moment(receipt.erased_at), told),
        };
      },
    }),
  ],
});
