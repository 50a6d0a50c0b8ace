// The console's clients: create one (its secret shown this once), and disable, enable, rotate
// the secret of, end the tokens of, or make a portal link for each, through the services the CLI
// uses (clients/clients.service.ts, portal/portal-links.ts).
import { z } from 'zod';
import { SCOPES } from '#api/scopes.js';
import type { Config } from '#common/config.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { text, ticked, tickedList } from '../../pages/fields.js';
import { clubOf } from '#api/sandbox.js';
import { PostForm } from '../../pages/layout.js';
import { Heads } from '../../pages/tables.js';
import { consoleAction, definePage } from '../../page-services.js';
import { listClientsWithLastUse, type ListedClient } from '../clients/clients.repository.js';
import {
  applyClientAction,
  CLIENT_ACTIONS,
  createClientAs,
  type ClientAction,
} from '../clients/clients.service.js';
import { makePortalLink } from '../portal/portal-links.js';
import { DataClassesField, dataClassesText } from './data-classes-field.js';

const PAGE = `${CONSOLE}/clients`;
/** How long a portal link made here opens the portal. */
const LINK_TTL_MS = 15 * 60_000;

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

/** The client's subscriptions an action left disabled, to look at on the webhooks page. */
const endedNote = (ids: readonly number[] | undefined) =>
  ids && ids.length > 0
    ? ` Webhook subscriptions disabled because the credentials that made them ended (credentials-ended): ${ids.join(', ')}; see Webhooks.`
    : '';

/** A new secret, with the key it goes with, for the operator to give the partner. */
const secretOf = (made: string, clientKey: string, secret: string, note?: string) =>
  ({
    kind: 'secret',
    message: `${made} Give these to the partner: the secret is shown only this once.`,
    note: note || undefined,
    shown: [
      ['client_key', clientKey],
      ['client_secret', secret],
    ],
  }) as const;

function CreateForm() {
  return (
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">New client</h2>
      <PostForm action={PAGE} class="stack">
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
      </PostForm>
    </section>
  );
}

const actionPath = (clientKey: string, action: string) =>
  `${PAGE}/${encodeURIComponent(clientKey)}/${action}`;

function Actions(props: { client: ListedClient }) {
  const { client_key: key, name, is_active: active } = props.client;
  const actions = active
    ? (['disable', 'rotate-secret', 'revoke-tokens'] as const)
    : (['enable', 'rotate-secret'] as const);
  return (
    <td class="actions">
      <a href={actionPath(key, 'edit')} aria-label={`Edit: ${name}`}>
        Edit
      </a>
      {actions.map((action) => (
        <PostForm action={actionPath(key, action)}>
          <button
            type="submit"
            class={action === 'enable' ? '' : 'warn'}
            aria-label={`${ACTION_LABELS[action]}: ${name}`}
            safe
          >
            {ACTION_LABELS[action]}
          </button>
        </PostForm>
      ))}
      {active ? (
        <PostForm action={actionPath(key, 'portal-link')}>
          <button type="submit" aria-label={`Portal link: ${name}`}>
            Portal link
          </button>
        </PostForm>
      ) : (
        ''
      )}
    </td>
  );
}

function limitsOf(client: ListedClient, config: Config) {
  const d = config.rateLimit;
  return client.rate_limit_minute === null
    ? `default ${d.perMinute}/${d.perHour}/${d.perDay}`
    : `${client.rate_limit_minute}/${client.rate_limit_hour}/${client.rate_limit_day}`;
}

function ClientsTable(props: { clients: ListedClient[]; config: Config }) {
  if (props.clients.length === 0) return <p>No clients yet.</p>;
  return (
    <div class="scroll">
      <table>
        <caption>Every client</caption>
        <Heads
          names={[
            'Key',
            'Name',
            'Scopes',
            'Personal data',
            'Branch',
            'Limits (M/H/D)',
            'State',
            'Last token',
            'Actions',
          ]}
        />
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
              <Actions client={c} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const clientKey = z.object({ key: z.string() });

export const clientsPage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: 'Clients',
  load: ({ services }) => listClientsWithLastUse(services.db),
  view: (clients, { services }) => (
    <>
      <ClientsTable clients={clients} config={services.config} />
      <CreateForm />
    </>
  ),
  actions: [
    consoleAction({
      body: z.object({
        name: text,
        scopes: tickedList,
        branch: text,
        limits: text,
        data: tickedList,
        sandbox: ticked,
      }),
      run: async ({ services, who, body }) => {
        const created = await createClientAs(services, who, {
          ...body,
          sandbox: body.sandbox?.includes('yes') ?? false,
        });
        return secretOf('Client created.', created.client_key, created.client_secret);
      },
    }),
    consoleAction({
      path: '/:key/:action',
      params: clientKey.extend({ action: z.enum(CLIENT_ACTIONS) }),
      run: async ({ services, who, params: { key, action } }) => {
        const done = await applyClientAction(services, who, action, key);
        const note = endedNote(done.subscriptions_disabled);
        return done.client_secret === undefined
          ? { kind: 'done', message: `${key} ${DONE[action]}.${note}` }
          : secretOf('New secret made.', key, done.client_secret, note);
      },
    }),
    consoleAction({
      path: '/:key/portal-link',
      params: clientKey,
      run: async ({ services, who, params: { key } }) => {
        const link = await makePortalLink(services, who, key, LINK_TTL_MS);
        return {
          kind: 'secret',
          message: `Send this link to the partner of ${key}. It opens their portal once, until ${link.expiresAt.toISOString()}; it is shown only this once.`,
          shown: [['Portal link', link.url]],
        };
      },
    }),
  ],
});
