// The console's clients: create one (its secret shown this once), and disable, enable, rotate
// the secret of, end the tokens of, or make a portal link for each, through the services the CLI
// uses (clients/clients.service.ts, portal/portal-links.ts).
import { escapeHtml } from '@kitajs/html';
import { z } from 'zod';
import type { Config } from '#common/config.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { text, ticked, tickedList } from '../../pages/fields.js';
import { clubOf } from '#api/sandbox.js';
import { At } from '../../pages/language.js';
import { Check, Field, FormSection } from '../../pages/form-parts.js';
import { PostForm } from '../../pages/layout.js';
import type { Format } from '../../pages/locale.js';
import type { Messages } from '../../pages/messages/index.js';
import { Heads } from '../../pages/tables.js';
import { consoleAction, definePage } from '../../page-services.js';
import { listClientsWithLastUse, type ListedClient } from '../clients/clients.repository.js';
import { applyClientAction, CLIENT_ACTIONS, createClientAs } from '../clients/clients.service.js';
import { makePortalLink } from '../portal/portal-links.js';
import { ClientFields, dataClassesText } from './client-fields.js';

const PAGE = `${CONSOLE}/clients`;
/** How long a portal link made here opens the portal. */
const LINK_TTL_MS = 15 * 60_000;

/** The client's subscriptions an action left disabled, to look at on the webhooks page. */
const endedNote = (t: Messages, ids: readonly number[] | undefined) =>
  ids && ids.length > 0 ? ` ${t.clients.endedNote(ids.join(', '))}` : '';

/** A new secret, with the key it goes with, for the operator to give the partner. */
const secretOf = (t: Messages, made: string, clientKey: string, secret: string, note?: string) =>
  ({
    kind: 'secret',
    message: `${made} ${t.clients.giveThese}`,
    note: note?.trim() || undefined,
    shown: [
      ['client_key', clientKey],
      ['client_secret', secret],
    ],
  }) as const;

function CreateForm(props: { config: Config; t: Messages }) {
  const w = props.t.clients;
  return (
    <FormSection id="create" heading={w.newClient} action={PAGE}>
      <Field id="name" label={w.name} required maxlength="200" autocomplete="off" />
      <ClientFields config={props.config} t={props.t} />
      <Check name="sandbox" value="yes" label={w.sandbox} hint={w.sandboxHint} />
      <button type="submit" safe>
        {w.create}
      </button>
    </FormSection>
  );
}

const actionPath = (clientKey: string, action: string) =>
  `${PAGE}/${encodeURIComponent(clientKey)}/${action}`;

function Actions(props: { client: ListedClient; t: Messages }) {
  const { client_key: key, name, is_active: active } = props.client;
  const w = props.t.clients;
  const actions = active
    ? (['disable', 'rotate-secret', 'revoke-tokens'] as const)
    : (['enable', 'rotate-secret'] as const);
  return (
    <td class="actions">
      <a href={actionPath(key, 'edit')} aria-label={w.editOf(name)} safe>
        {props.t.common.edit}
      </a>
      {actions.map((action) => (
        <PostForm action={actionPath(key, action)}>
          <button
            type="submit"
            class={action === 'enable' ? '' : 'warn'}
            aria-label={w.actionOf(w.actions[action], name)}
            safe
          >
            {w.actions[action]}
          </button>
        </PostForm>
      ))}
      {active ? (
        <PostForm action={actionPath(key, 'portal-link')}>
          <button type="submit" aria-label={w.portalLinkOf(name)} safe>
            {w.portalLink}
          </button>
        </PostForm>
      ) : (
        ''
      )}
    </td>
  );
}

function limitsOf(client: ListedClient, config: Config, t: Messages) {
  const d = config.rateLimit;
  return client.rate_limit_minute === null
    ? t.clients.defaultLimits(`${d.perMinute}/${d.perHour}/${d.perDay}`)
    : `${client.rate_limit_minute}/${client.rate_limit_hour}/${client.rate_limit_day}`;
}

function stateText(client: ListedClient, t: Messages) {
  const state = client.is_active ? t.clients.active : t.clients.disabled;
  return clubOf(client.client_key) === 'sandbox' ? `${state}, ${t.clients.sandboxState}` : state;
}

function ClientsTable(props: {
  clients: ListedClient[];
  config: Config;
  t: Messages;
  format: Format;
}) {
  const { t, format } = props;
  if (props.clients.length === 0) return <p safe>{t.clients.none}</p>;
  return (
    <div class="scroll">
      <table>
        <caption safe>{t.clients.caption}</caption>
        <Heads names={t.clients.heads} />
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
              <td safe>{dataClassesText(c, t)}</td>
              <td safe>{c.branch_id === null ? t.common.all : String(c.branch_id)}</td>
              <td safe>{limitsOf(c, props.config, t)}</td>
              <td safe>{stateText(c, t)}</td>
              <td>
                {c.last_used_at ? (
                  <At at={c.last_used_at} text={format.moment(c.last_used_at)} />
                ) : (
                  escapeHtml(t.common.never)
                )}
              </td>
              <Actions client={c} t={t} />
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
  title: ({ t }) => t.clients.title,
  nav: ({ t }) => t.nav.clients,
  load: ({ services }) => listClientsWithLastUse(services.db),
  view: (clients, { services, t, format }) => (
    <>
      <ClientsTable clients={clients} config={services.config} t={t} format={format} />
      <CreateForm config={services.config} t={t} />
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
      run: async ({ services, who, body, t }) => {
        const created = await createClientAs(services, who, {
          ...body,
          sandbox: body.sandbox?.includes('yes') ?? false,
        });
        return secretOf(t, t.clients.created, created.client_key, created.client_secret);
      },
    }),
    consoleAction({
      path: '/:key/:action',
      params: clientKey.extend({ action: z.enum(CLIENT_ACTIONS) }),
      run: async ({ services, who, params: { key, action }, t }) => {
        const done = await applyClientAction(services, who, action, key);
        const note = endedNote(t, done.subscriptions_disabled);
        return done.client_secret === undefined
          ? { kind: 'done', message: `${t.clients.done[action](key)}${note}` }
          : secretOf(t, t.clients.newSecret, key, done.client_secret, note);
      },
    }),
    consoleAction({
      path: '/:key/portal-link',
      params: clientKey,
      run: async ({ services, who, params: { key }, t, format }) => {
        const link = await makePortalLink(services, who, key, LINK_TTL_MS);
        return {
          kind: 'secret',
          message: t.clients.linkMade(key, format.moment(link.expiresAt)),
          shown: [[t.clients.portalLink, link.url]],
        };
      },
    }),
  ],
});
