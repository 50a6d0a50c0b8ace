// The console's clients: create one (its secret shown this once), and disable, enable, rotate
// the secret of, or end the tokens of each, through the services the CLI uses
// (clients/clients.service.ts).
import type { Request, Response, Router } from 'express';
import { SCOPES } from '#api/scopes.js';
import type { Config } from '#common/config.js';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { Notice, sendPage } from '../../pages/layout.js';
import { listClientsWithLastUse, type ListedClient } from '../clients/clients.repository.js';
import {
  applyClientAction,
  createClientAs,
  isClientAction,
  type ClientAction,
  type ClientDeps,
} from '../clients/clients.service.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { DataClassesField, dataClassesText } from './data-classes-field.js';
import { clubOf } from '#api/sandbox.js';
import { CONSOLE, ConsolePage, consoleOperator } from './console-page.js';
import { PortalLinkForm } from './portal-link.page.js';

const PAGE = `${CONSOLE}/clients`;

const ACTION_LABELS: Record<ClientAction, string> = {
  disable: 'Disable',
  enable: 'Enable',
  'rotate-secret': 'Rotate secret',
  'revoke-tokens': 'Revoke tokens',
};

const DONE: Record<ClientAction, string> = {
  disable: 'disabled; its tokens no longer work',
  enable: 'enabled; it must request new tokens',
  'rotate-secret': 'has a new secret; its tokens no longer work',
  'revoke-tokens': 'has no working token left',
};

/** What the page shows above its content after a form. */
type Outcome =
  | { kind: 'error'; message: string }
  | { kind: 'done'; message: string }
  | { kind: 'secret'; clientKey: string; secret: string; created: boolean; note?: string };

/** The client's subscriptions an action left disabled, to look at on the webhooks page. */
const endedNote = (ids: readonly number[] | undefined) =>
  ids && ids.length > 0
    ? ` Webhook subscriptions disabled because the credentials that made them ended (credentials-ended): ${ids.join(', ')}; see Webhooks.`
    : '';

function OutcomeNotice(props: { outcome: Outcome | undefined }) {
  const { outcome } = props;
  if (!outcome) return '';
  if (outcome.kind === 'error')
    return (
      <Notice kind="error">
        <span safe>{outcome.message}</span>
      </Notice>
    );
  if (outcome.kind === 'done')
    return (
      <Notice kind="done">
        <span safe>{outcome.message}</span>
      </Notice>
    );
  return (
    <Notice kind="done" secret>
      <p>
        {outcome.created ? 'Client created. ' : 'New secret made. '}Give these to the partner: the
        secret is shown only this once.
      </p>
      {outcome.note ? <p safe>{outcome.note}</p> : ''}
      <dl class="secret">
        <dt>client_key</dt>
        <dd>
          <code safe>{outcome.clientKey}</code>
        </dd>
        <dt>client_secret</dt>
        <dd>
          <code safe>{outcome.secret}</code>
        </dd>
      </dl>
    </Notice>
  );
}

function CreateForm(props: { csrf: string }) {
  return (
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">New client</h2>
      <form method="post" action={PAGE} class="stack">
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <label for="name">Name</label>
        <input id="name" name="name" required maxlength="200" autocomplete="off" />
        <fieldset>
          <legend>Scopes</legend>
          <div class="scopes">
            {SCOPES.map((scope) => (
              <label class="check">
                <input type="checkbox" name="scopes" value={scope} />
                <span>{scope}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <DataClassesField held={[]} />
        <label for="branch">Branch id (empty: every branch)</label>
        <input id="branch" name="branch" inputmode="numeric" pattern="[0-9]*" />
        <label for="limits">Limits per minute/hour/day (empty: the defaults)</label>
        <input
          id="limits"
          name="limits"
          placeholder="60/1000/10000"
          aria-describedby="limits-hint"
        />
        <p id="limits-hint" class="hint">
          Three positive integers separated by slashes.
        </p>
        <label class="check">
          <input type="checkbox" name="sandbox" value="yes" aria-describedby="sandbox-hint" />
          <span>Sandbox client</span>
        </label>
        <p id="sandbox-hint" class="hint">
          Its key begins sbx_ and its tokens read the sandbox's generated club, never a live row.
        </p>
        <button type="submit">Create client</button>
      </form>
    </section>
  );
}

function ActionForm(props: {
  clientKey: string;
  action: ClientAction;
  csrf: string;
  name: string;
}) {
  return (
    <form method="post" action={`${PAGE}/${encodeURIComponent(props.clientKey)}/${props.action}`}>
      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
      <button
        type="submit"
        class={props.action === 'enable' ? '' : 'warn'}
        aria-label={`${ACTION_LABELS[props.action]}: ${props.name}`}
        safe
      >
        {ACTION_LABELS[props.action]}
      </button>
    </form>
  );
}

function limitsOf(client: ListedClient, config: Config) {
  const d = config.rateLimit;
  return client.rate_limit_minute === null
    ? `default ${d.perMinute}/${d.perHour}/${d.perDay}`
    : `${client.rate_limit_minute}/${client.rate_limit_hour}/${client.rate_limit_day}`;
}

function ClientsTable(props: { clients: ListedClient[]; config: Config; csrf: string }) {
  if (props.clients.length === 0) return <p>No clients yet.</p>;
  return (
    <div class="scroll">
      <table>
        <caption>Every client</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Name</th>
            <th scope="col">Scopes</th>
            <th scope="col">Personal data</th>
            <th scope="col">Branch</th>
            <th scope="col">Limits (M/H/D)</th>
            <th scope="col">State</th>
            <th scope="col">Last token</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.clients.map((c) => (
            <tr>
              <td>
                <code safe>{c.client_key}</code>
              </td>
              <td safe>{c.name}</td>
              <td class="scope-list" safe>
                {c.scopes.join(', ')}
              </td>
              <td safe>{dataClassesText(c)}</td>
              <td safe>{c.branch_id === null ? 'all' : String(c.branch_id)}</td>
              <td safe>{limitsOf(c, props.config)}</td>
              <td safe>
                {`${c.is_active ? 'active' : 'disabled'}${clubOf(c.client_key) === 'sandbox' ? ', sandbox' : ''}`}
              </td>
              <td>
                {c.last_used_at
                  ? c.last_used_at.toISOString().slice(0, 16).replace('T', ' ')
                  : 'never'}
              </td>
              <td class="actions">
                <a
                  href={`${PAGE}/${encodeURIComponent(c.client_key)}/edit`}
                  aria-label={`Edit: ${c.name}`}
                >
                  Edit
                </a>
                {(c.is_active
                  ? (['disable', 'rotate-secret', 'revoke-tokens'] as const)
                  : (['enable', 'rotate-secret'] as const)
                ).map((action) => (
                  <ActionForm
                    clientKey={c.client_key}
                    action={action}
                    csrf={props.csrf}
                    name={c.name}
                  />
                ))}
                {c.is_active ? (
                  <PortalLinkForm clientKey={c.client_key} name={c.name} csrf={props.csrf} />
                ) : (
                  ''
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

async function renderClients(
  req: Request,
  res: Response,
  deps: ConsoleClientsDeps,
  outcome?: Outcome,
  status = 200,
) {
  const clients = await listClientsWithLastUse(deps.db);
  const csrf = csrfToken(req);
  // After a form the address stays the page's own, so reloading it repeats nothing.
  res.set('HX-Push-Url', PAGE);
  await sendPage(
    res,
    <ConsolePage req={req} title="Clients" current={PAGE}>
      <OutcomeNotice outcome={outcome} />
      <ClientsTable clients={clients} config={deps.config} csrf={csrf} />
      <CreateForm csrf={csrf} />
    </ConsolePage>,
    status,
  );
}

export interface ConsoleClientsDeps extends ClientDeps {
  config: Config;
}

/** A form field as one string: checkboxes of one name arrive as a list. */
const field = (value: unknown): string | undefined =>
  Array.isArray(value)
    ? value.join(',')
    : typeof value === 'string' && value !== ''
      ? value
      : undefined;

async function refusedOr(run: () => Promise<Outcome>): Promise<[Outcome, number]> {
  try {
    return [await run(), 200];
  } catch (error) {
    if (error instanceof OperatorRefusal) return [{ kind: 'error', message: error.message }, 400];
    throw error;
  }
}

export function clientsPage(router: Router, deps: ConsoleClientsDeps): void {
  router.get(PAGE, (req, res) => renderClients(req, res, deps));

  router.post(PAGE, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const [outcome, status] = await refusedOr(async () => {
      const created = await createClientAs(deps, consoleOperator(req), {
        name: field(body.name),
        scopes: field(body.scopes),
        branch: field(body.branch),
        limits: field(body.limits),
        data: field(body.data),
        sandbox: body.sandbox === 'yes',
      });
      return {
        kind: 'secret',
        clientKey: created.client_key,
        secret: created.client_secret,
        created: true,
      };
    });
    await renderClients(req, res, deps, outcome, status);
  });

  router.post(`${PAGE}/:key/:action`, async (req, res) => {
    const { key, action } = req.params;
    if (!isClientAction(action))
      return renderClients(
        req,
        res,
        deps,
        { kind: 'error', message: `unknown action ${action}` },
        404,
      );
    const [outcome, status] = await refusedOr(async () => {
      const done = await applyClientAction(deps, consoleOperator(req), action, key);
      const note = endedNote(done.subscriptions_disabled);
      return done.client_secret === undefined
        ? { kind: 'done', message: `${key} ${DONE[action]}.${note}` }
        : { kind: 'secret', clientKey: key, secret: done.client_secret, created: false, note };
    });
    await renderClients(req, res, deps, outcome, status);
  });
}
