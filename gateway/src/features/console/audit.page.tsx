// The operator audit, newest first: every operator action from the console and the CLIs
// (operators/operator-audit.ts), the same records `npm run audit -- --operator` prints.
import type { Router } from 'express';
import type { ReadModelClient } from '#common/databases.js';
import { sendPage } from '../../pages/layout.js';
import { listOperatorActions } from '../operators/operator-audit.js';
import { CONSOLE, ConsolePage } from './console-page.js';

const PAGE = `${CONSOLE}/audit`;
const SHOWN = 500;

export function auditPage(router: Router, deps: { db: ReadModelClient }): void {
  router.get(PAGE, async (req, res) => {
    const clientKey =
      typeof req.query.client === 'string' && req.query.client ? req.query.client : undefined;
    const rows = await listOperatorActions(deps.db, { clientKey, limit: SHOWN });
    await sendPage(
      res,
      <ConsolePage req={req} title="Operator audit" current={PAGE}>
        <form method="get" action={PAGE} class="filters">
          <label>
            Client key
            <input name="client" value={clientKey ?? ''} />
          </label>
          <button type="submit">Filter</button>
        </form>
        {rows.length === 0 ? (
          <p>No operator actions recorded.</p>
        ) : (
          <div class="scroll">
            <table>
              <caption safe>{`The newest ${rows.length} actions (at most ${SHOWN})`}</caption>
              <thead>
                <tr>
                  <th scope="col">When (UTC)</th>
                  <th scope="col">Who</th>
                  <th scope="col">Through</th>
                  <th scope="col">From</th>
                  <th scope="col">Action</th>
                  <th scope="col">Client</th>
                  <th scope="col">Target</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr>
                    <td safe>{row.at.toISOString().replace('T', ' ').slice(0, 19)}</td>
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
      </ConsolePage>,
    );
  });
}
