// A member's page for the operator (docs/decisions/0023-data-classes.md): found by id or member
// number, what the gateway holds about it and who received which classes (`npm run members --
// report`), and its erasure with a typed confirmation and a reason (`npm run members -- erase`),
// through the same services, each recorded in the operator audit.
import { z } from 'zod';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { positiveId, trimmed } from '../../pages/fields.js';
import { Filters } from '../../pages/filters.js';
import { Notice, PostForm } from '../../pages/layout.js';
import { Heads } from '../../pages/tables.js';
import { consoleAction, definePage } from '../../page-services.js';
import { eraseAs } from '../members/erasure.service.js';
import { findReportAs } from '../members/member-data.service.js';

const PAGE = `${CONSOLE}/members`;

type Report = NonNullable<Awaited<ReturnType<typeof findReportAs>>>;

const when = (at: Date) => at.toISOString().replace('T', ' ').slice(0, 19);

function ReportView(props: { report: Report }) {
  const { report } = props;
  const id = report.member_id;
  return (
    <>
      <h2>Held by the gateway</h2>
      {report.member ? (
        <table>
          <caption safe>{`Member ${id}, as the API shows it in every class`}</caption>
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
        <p>Not in the read model (erased or deleted).</p>
      )}
      <p safe>
        {`Also kept: ${report.kept.webhook_events} webhook events, ${report.kept.member_write_audit} member-write audit records.`}
      </p>
      <h2>Recipients</h2>
      {report.recipients.length === 0 ? (
        <p>No client has received this member's data.</p>
      ) : (
        <table>
          <caption>Clients that received the member's data</caption>
          <Heads names={['Client', 'Classes', 'First (UTC)', 'Last (UTC)']} />
          <tbody>
            {report.recipients.map((r) => (
              <tr>
                <td>
                  <code safe>{r.client_key}</code>
                </td>
                <td safe>{r.classes.join(', ')}</td>
                <td safe>{when(r.first_at)}</td>
                <td safe>{when(r.last_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.member ? <EraseForm id={id} /> : ''}
    </>
  );
}

function EraseForm(props: { id: number }) {
  const { id } = props;
  return (
    <section aria-labelledby="erase-heading">
      <h2 id="erase-heading">Erase</h2>
      <p>
        Replaces the member's personal data in the dashboard (packages and transactions stay),
        removes it from the read model and the gateway's copies, and tells every recipient above. It
        cannot be undone.
      </p>
      <PostForm action={`${PAGE}/${id}/erase`} class="stack">
        <label for="reason">Reason (kept in the operator audit)</label>
        <input id="reason" name="reason" required maxlength="500" autocomplete="off" />
        <label for="confirm" safe>
          {`Type the member's id, ${id}, to confirm`}
        </label>
        <input id="confirm" name="confirm" required inputmode="numeric" autocomplete="off" />
        <button type="submit" class="warn" safe>
          {`Erase member ${id}`}
        </button>
      </PostForm>
    </section>
  );
}

export const membersPage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: 'Members',
  query: z.object({ q: trimmed.catch('') }),
  load: async ({ services, who, query: { q } }) => ({
    report: q ? await findReportAs(services.db, who, q) : null,
  }),
  view: ({ report }, { query: { q }, outcome }) => (
    <>
      <Filters action={PAGE} button="Find">
        <label>
          Member id or number
          <input name="q" value={q} required />
        </label>
      </Filters>
      {q && !report && !outcome ? (
        <Notice kind="error">
          <span safe>{`No member with id or number ${q}.`}</span>
        </Notice>
      ) : (
        ''
      )}
      {report ? <ReportView report={report} /> : ''}
    </>
  ),
  actions: [
    consoleAction({
      path: '/:id/erase',
      params: z.object({ id: positiveId }),
      body: z.object({ confirm: trimmed, reason: trimmed }),
      shows: ({ id }) => ({ q: String(id) }),
      run: async ({ services, who, params: { id }, body }) => {
        if (body.confirm !== String(id))
          throw new OperatorRefusal(`Not erased: type the member's id, ${id}, to confirm.`);
        const receipt = await eraseAs(services, who, id, body.reason);
        const told = receipt.notified.length > 0 ? receipt.notified.join(', ') : 'no client';
        return {
          kind: 'done',
          message: `Member ${id} erased at ${receipt.erased_at.toISOString()}; told: ${told}.`,
        };
      },
    }),
  ],
});
