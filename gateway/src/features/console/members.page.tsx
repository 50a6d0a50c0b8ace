// A member's page for the operator (docs/decisions/0023-data-classes.md): found by id or member
// number, what the gateway holds about it and who received which classes (`npm run members --
// report`), and its erasure with a typed confirmation and a reason (`npm run members -- erase`),
// through the same services, each recorded in the operator audit.
import type { Request, Response, Router } from 'express';
import type { ReadModelClient } from '#common/databases.js';
import type { RedisClient } from '#common/redis.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { Notice, sendPage } from '../../pages/layout.js';
import type { GatewayLegacy } from '../members/legacy-connection.js';
import { eraseAs } from '../members/erasure.service.js';
import { reportAs } from '../members/member-data.service.js';
import { CONSOLE, ConsolePage, consoleOperator } from './console-page.js';

const PAGE = `${CONSOLE}/members`;

export interface MembersPageDeps {
  db: ReadModelClient;
  redis: RedisClient;
  legacy: GatewayLegacy;
  config: { redis: { prefix: string } };
}

type Report = Awaited<ReturnType<typeof reportAs>>;
type Outcome = { kind: 'error' | 'done'; message: string };

/** The member an operator's search names: an id, or a member number of the read model. */
async function memberIdOf(db: ReadModelClient, query: string): Promise<number | null> {
  if (/^\d{1,9}$/.test(query)) return Number(query);
  const found = await db.member.findFirst({ where: { member_no: query }, select: { id: true } });
  return found?.id ?? null;
}

const when = (at: Date) => at.toISOString().replace('T', ' ').slice(0, 19);

function ReportView(props: { report: Report; csrf: string }) {
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
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Classes</th>
              <th scope="col">First (UTC)</th>
              <th scope="col">Last (UTC)</th>
            </tr>
          </thead>
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
      {report.member ? (
        <section aria-labelledby="erase-heading">
          <h2 id="erase-heading">Erase</h2>
          <p>
            Replaces the member's personal data in the dashboard (packages and transactions stay),
            removes it from the read model and the gateway's copies, and tells every recipient
            above. It cannot be undone.
          </p>
          <form method="post" action={`${PAGE}/${id}/erase`} class="stack">
            <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
            <label for="reason">Reason (kept in the operator audit)</label>
            <input id="reason" name="reason" required maxlength="500" autocomplete="off" />
            <label for="confirm" safe>
              {`Type the member's id, ${id}, to confirm`}
            </label>
            <input id="confirm" name="confirm" required inputmode="numeric" autocomplete="off" />
            <button type="submit" class="warn" safe>
              {`Erase member ${id}`}
            </button>
          </form>
        </section>
      ) : (
        ''
      )}
    </>
  );
}

async function render(
  req: Request,
  res: Response,
  deps: MembersPageDeps,
  query: string,
  outcome?: Outcome,
  status = 200,
) {
  let report: Report | null = null;
  let notice = outcome;
  if (query) {
    const id = await memberIdOf(deps.db, query);
    try {
      report = id === null ? null : await reportAs(deps.db, consoleOperator(req), id);
    } catch (error) {
      if (!(error instanceof OperatorRefusal)) throw error;
    }
    if (!report) notice ??= { kind: 'error', message: `No member with id or number ${query}.` };
  }
  await sendPage(
    res,
    <ConsolePage req={req} title="Members" current={PAGE}>
      <form method="get" action={PAGE} class="filters">
        <label>
          Member id or number
          <input name="q" value={query} required />
        </label>
        <button type="submit">Find</button>
      </form>
      {notice ? (
        <Notice kind={notice.kind}>
          <span safe>{notice.message}</span>
        </Notice>
      ) : (
        ''
      )}
      {report ? <ReportView report={report} csrf={csrfToken(req)} /> : ''}
    </ConsolePage>,
    status,
  );
}

/** A form field as one trimmed string. */
const field = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

export function membersPage(router: Router, deps: MembersPageDeps): void {
  router.get(PAGE, (req, res) => render(req, res, deps, field(req.query.q)));

  router.post(`${PAGE}/:id/erase`, async (req, res) => {
    const id = String(req.params.id);
    const body = req.body as Record<string, unknown>;
    if (!/^\d{1,9}$/.test(id) || field(body.confirm) !== id) {
      const message = `Not erased: type the member's id, ${id}, to confirm.`;
      return render(req, res, deps, id, { kind: 'error', message }, 400);
    }
    try {
      const receipt = await eraseAs(
        { db: deps.db, legacy: deps.legacy, redis: deps.redis, prefix: deps.config.redis.prefix },
        consoleOperator(req),
        Number(id),
        field(body.reason),
      );
      const told = receipt.notified.length > 0 ? receipt.notified.join(', ') : 'no client';
      const message = `Member ${id} erased at ${receipt.erased_at.toISOString()}; told: ${told}.`;
      await render(req, res, deps, id, { kind: 'done', message });
    } catch (error) {
      if (!(error instanceof OperatorRefusal)) throw error;
      await render(req, res, deps, id, { kind: 'error', message: error.message }, 400);
    }
  });
}
