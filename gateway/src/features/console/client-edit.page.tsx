// Editing a client's scopes, data classes, limits and branch from the console, through the
// services the CLI's set-scopes, grant, set-limits and set-branch call (clients.service.ts): only
// what the form changes is applied, and each change is one record of the operator audit.
import type { Request, Response, Router } from 'express';
import { SCOPES } from '#api/scopes.js';
import type { Config } from '#common/config.js';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { Notice, sendPage } from '../../pages/layout.js';
import {
  grantDataClassesAs,
  parseDataClasses,
  setBranchAs,
  setLimitsAs,
  setScopesAs,
  type ClientDeps,
} from '../clients/clients.service.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { CONSOLE, ConsolePage, consoleOperator } from './console-page.js';
import { DataClassesField } from './data-classes-field.js';

const CLIENTS = `${CONSOLE}/clients`;
const editPath = (key: string) => `${CLIENTS}/${encodeURIComponent(key)}/edit`;

export interface ClientEditDeps extends ClientDeps {
  config: Config;
}

interface EditedClient {
  client_key: string;
  name: string;
  scopes: string[];
  data_classes: string[];
  data_classes_review: boolean;
  branch_id: number | null;
  rate_limit_minute: number | null;
  rate_limit_hour: number | null;
  rate_limit_day: number | null;
}

const limitsText = (c: EditedClient) =>
  c.rate_limit_minute === null
    ? ''
    : `${c.rate_limit_minute}/${c.rate_limit_hour}/${c.rate_limit_day}`;
const branchText = (c: EditedClient) => (c.branch_id === null ? '' : String(c.branch_id));

function EditForm(props: { client: EditedClient; csrf: string; config: Config }) {
  const { client } = props;
  const d = props.config.rateLimit;
  return (
    <form method="post" action={editPath(client.client_key)} class="stack">
      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
      <fieldset>
        <legend>Scopes</legend>
        <div class="scopes">
          {SCOPES.map((scope) => (
            <label class="check">
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                checked={client.scopes.includes(scope)}
              />
              <span>{scope}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {client.data_classes_review ? (
        <Notice kind="error">
          Made before data classes existed, this client receives every class. Choose what it needs
          and save: until then it is listed as "all classes: review".
        </Notice>
      ) : (
        ''
      )}
      <DataClassesField held={client.data_classes} />
      <label for="branch">Branch id (empty: every branch)</label>
      <input
        id="branch"
        name="branch"
        inputmode="numeric"
        pattern="[0-9]*"
        value={branchText(client)}
      />
      <label for="limits">Limits per minute/hour/day (empty: the defaults)</label>
      <input
        id="limits"
        name="limits"
        value={limitsText(client)}
        placeholder={`${d.perMinute}/${d.perHour}/${d.perDay}`}
        aria-describedby="limits-hint"
      />
      <p id="limits-hint" class="hint">
        Three positive integers separated by slashes.
      </p>
      <button type="submit">Save changes</button>
    </form>
  );
}

async function renderEdit(
  req: Request,
  res: Response,
  deps: ClientEditDeps,
  notice?: { kind: 'error' | 'done'; message: string },
  status = 200,
) {
  const key = String(req.params.key);
  const client = await deps.db.apiClient.findUnique({ where: { client_key: key } });
  if (!client) {
    return sendPage(
      res,
      <ConsolePage req={req} title="No such client" current={CLIENTS}>
        <Notice kind="error">
          <span safe>{`No client with key ${key}.`}</span>
        </Notice>
      </ConsolePage>,
      404,
    );
  }
  await sendPage(
    res,
    <ConsolePage req={req} title={`Edit ${client.name}`} current={CLIENTS}>
      {notice ? (
        <Notice kind={notice.kind}>
          <span safe>{notice.message}</span>
        </Notice>
      ) : (
        ''
      )}
      <p>
        Client <code safe>{client.client_key}</code>. Changes apply to its live tokens, on every
        gateway, within a second. <a href={CLIENTS}>Back to every client</a>
      </p>
      <EditForm client={client} csrf={csrfToken(req)} config={deps.config} />
    </ConsolePage>,
    status,
  );
}

/** A form field as one string: checkboxes of one name arrive as a list. */
const field = (value: unknown): string =>
  Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value.trim() : '';

export function clientEditPage(router: Router, deps: ClientEditDeps): void {
  router.get(`${CLIENTS}/:key/edit`, (req, res) => renderEdit(req, res, deps));

  router.post(`${CLIENTS}/:key/edit`, async (req, res) => {
    const key = String(req.params.key);
    const body = req.body as Record<string, unknown>;
    const client = await deps.db.apiClient.findUnique({ where: { client_key: key } });
    if (!client) return renderEdit(req, res, deps);
    const operator = consoleOperator(req);
    const [scopes, limits, branch] = [field(body.scopes), field(body.limits), field(body.branch)];
    const changed: string[] = [];
    try {
      // The form always sends `basic` (data-classes-field.tsx); a post without the field leaves
      // the classes as they are.
      const data = body.data === undefined ? null : parseDataClasses(field(body.data)).join(',');
      if (scopes !== client.scopes.join(',')) {
        await setScopesAs(deps, operator, key, scopes);
        changed.push('scopes');
      }
      // A client under review is confirmed by saving, whether or not its classes change.
      if (data !== null && (data !== client.data_classes.join(',') || client.data_classes_review)) {
        await grantDataClassesAs(deps, operator, key, data);
        changed.push('data classes');
      }
      if (limits !== limitsText(client)) {
        await setLimitsAs(deps, operator, key, limits === '' ? 'default' : limits);
        changed.push('limits');
      }
      if (branch !== branchText(client)) {
        await setBranchAs(deps, operator, key, branch === '' ? 'all' : branch);
        changed.push('branch');
      }
    } catch (error) {
      if (!(error instanceof OperatorRefusal)) throw error;
      const saved = changed.length > 0 ? ` (saved before it: ${changed.join(', ')})` : '';
      return renderEdit(req, res, deps, { kind: 'error', message: error.message + saved }, 400);
    }
    const message =
      changed.length === 0 ? 'Nothing changed.' : `${key}: ${changed.join(', ')} saved.`;
    await renderEdit(req, res, deps, { kind: 'done', message });
  });
}
