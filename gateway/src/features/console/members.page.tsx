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
import { pageWords } from '../../pages/page-words.js';
import { Heads } from '../../pages/tables.js';
import { consoleAction, definePage } from '../../page-services.js';
import { eraseAs } from '../members/erasure.service.js';
import { findReportAs } from '../members/member-data.service.js';

const PAGE = `${CONSOLE}/members`;

const words = pageWords({
  en: {
    nav: 'Members',
    title: 'Members',
    find: 'Find',
    idOrNumber: 'Member id or number',
    noMember: (q: string) => `No member with id or number ${q}.`,
    held: 'Held by the gateway',
    asShown: (id: number) => `Member ${id}, as the API shows it in every class`,
    gone: 'Not in the read model (erased or deleted).',
    kept: (events: string, audits: string) =>
      `Also kept: ${events} webhook events, ${audits} member-write audit records.`,
    recipients: 'Recipients',
    noRecipient: "No client has received this member's data.",
    recipientsCaption: "Clients that received the member's data",
    recipientHeads: ['Client', 'Classes', 'First (UTC)', 'Last (UTC)'],
    erase: 'Erase',
    eraseText:
      "Replaces the member's personal data in the dashboard (packages and transactions stay), removes it from the read model and the gateway's copies, and tells every recipient above. It cannot be undone.",
    reason: 'Reason (kept in the operator audit)',
    confirm: (id: number) => `Type the member's id, ${id}, to confirm`,
    eraseButton: (id: number) => `Erase member ${id}`,
    notConfirmed: (id: number) => `Not erased: type the member's id, ${id}, to confirm.`,
    erased: (id: number, at: string, told: string) =>
      `Member ${id} erased at ${at}; told: ${told}.`,
    noClient: 'no client',
  },
  tr: {
    nav: 'Üyeler',
    title: 'Üyeler',
    find: 'Bul',
    idOrNumber: 'Üye kimliği ya da üye numarası',
    noMember: (q) => `Kimliği ya da numarası ${q} olan bir üye yok.`,
    held: 'Ağ geçidinde tutulanlar',
    asShown: (id) => `${id} numaralı üye, API’nin tüm sınıflarda gösterdiği biçimiyle`,
    gone: 'Okuma modelinde yok (silinmiş ya da kaldırılmış).',
    kept: (events, audits) =>
      `Ayrıca saklananlar: ${events} webhook olayı, ${audits} üye yazma denetim kaydı.`,
    recipients: 'Alıcılar',
    noRecipient: 'Bu üyenin verilerini hiçbir istemci almadı.',
    recipientsCaption: 'Üyenin verilerini alan istemciler',
    recipientHeads: ['İstemci', 'Sınıflar', 'İlk (UTC)', 'Son (UTC)'],
    erase: 'Sil',
    eraseText:
      'Üyenin kişisel verilerini paneldeki kaydında değiştirir (paketler ve işlemler kalır), okuma modelinden ve ağ geçidinin kopyalarından kaldırır ve yukarıdaki tüm alıcılara bildirir. Geri alınamaz.',
    reason: 'Gerekçe (operatör denetim kaydında saklanır)',
    confirm: (id) => `Onaylamak için üyenin kimliğini (${id}) yazın`,
    eraseButton: (id) => `${id} numaralı üyeyi sil`,
    notConfirmed: (id) => `Silinmedi: onaylamak için üyenin kimliğini (${id}) yazın.`,
    erased: (id, at, told) => `${id} numaralı üye ${at} tarihinde silindi; bildirilenler: ${told}.`,
    noClient: 'hiçbir istemci',
  },
});

/** The page's words in the request's language. */
type OwnWords = ReturnType<typeof words>;

type Report = NonNullable<Awaited<ReturnType<typeof findReportAs>>>;

function ReportView(props: { report: Report; w: OwnWords; format: Format }) {
  const { report, w, format } = props;
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
      {report.member ? <EraseForm id={id} w={w} /> : ''}
    </>
  );
}

function EraseForm(props: { id: number; w: OwnWords }) {
  const { id, w } = props;
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
  title: (language) => words(language).title,
  nav: (language) => words(language).nav,
  query: z.object({ q: trimmed.catch('') }),
  load: async ({ services, who, query: { q } }) => ({
    report: q ? await findReportAs(services.db, who, q) : null,
  }),
  view: ({ report }, { query: { q }, outcome, format, locale }) => {
    const w = words({ locale });
    return (
      <>
        <Filters action={PAGE} button={w.find}>
          <label>
            {escapeHtml(w.idOrNumber)}
            <input name="q" value={q} required />
          </label>
        </Filters>
        {q && !report && !outcome ? (
          <Notice kind="error">
            <span safe>{w.noMember(q)}</span>
          </Notice>
        ) : (
          ''
        )}
        {report ? <ReportView report={report} w={w} format={format} /> : ''}
      </>
    );
  },
  actions: [
    consoleAction({
      path: '/:id/erase',
      params: z.object({ id: positiveId }),
      body: z.object({ confirm: trimmed, reason: trimmed }),
      shows: ({ id }) => ({ q: String(id) }),
      run: async ({ services, who, params: { id }, body, format, locale }) => {
        const w = words({ locale });
        // Worded here, in the page's language: the refusal shows its message as it is.
        if (body.confirm !== String(id)) throw new OperatorRefusal(w.notConfirmed(id));
        const receipt = await eraseAs(services, who, id, body.reason);
        const told = receipt.notified.length > 0 ? receipt.notified.join(', ') : w.noClient;
        return {
          kind: 'done',
          message: w.erased(id, format.moment(receipt.erased_at), told),
        };
      },
    }),
  ],
});
