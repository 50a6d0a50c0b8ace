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
import { pageWords } from '../../pages/page-words.js';
import { Heads } from '../../pages/tables.js';
import { consoleAction, definePage } from '../../page-services.js';
import { listClientsWithLastUse, type ListedClient } from '../clients/clients.repository.js';
import { applyClientAction, CLIENT_ACTIONS, createClientAs } from '../clients/clients.service.js';
import { makePortalLink } from '../portal/portal-links.js';
import { ClientFields, dataClassesText } from './client-fields.js';

const PAGE = `${CONSOLE}/clients`;
/** How long a portal link made here opens the portal. */
const LINK_TTL_MS = 15 * 60_000;

/** The page's words (test/pages/page-languages*.test.ts read the Turkish ones). */
const words = pageWords({
  en: {
    nav: 'Clients',
    title: 'Clients',
    actions: {
      disable: 'Disable',
      enable: 'Enable',
      'rotate-secret': 'Rotate secret',
      'revoke-tokens': 'Revoke tokens',
    },
    done: {
      disable: (key: string) => `${key} disabled; its tokens no longer work.`,
      enable: (key: string) => `${key} enabled; it must request new tokens.`,
      'rotate-secret': (key: string) => `${key} has a new secret; its tokens no longer work.`,
      'revoke-tokens': (key: string) => `${key} has no working token left.`,
    },
    endedNote: (ids: string) =>
      `Webhook subscriptions disabled because the credentials that made them ended (credentials-ended): ${ids}; see Webhooks.`,
    created: 'Client created.',
    newSecret: 'New secret made.',
    giveThese: 'Give these to the partner: the secret is shown only this once.',
    newClient: 'New client',
    name: 'Name',
    sandbox: 'Sandbox client',
    sandboxHint:
      "Its key begins sbx_ and its tokens read the sandbox's generated club, never a live row.",
    create: 'Create client',
    editOf: (name: string) => `Edit: ${name}`,
    actionOf: (action: string, name: string) => `${action}: ${name}`,
    portalLink: 'Portal link',
    portalLinkOf: (name: string) => `Portal link: ${name}`,
    defaultLimits: (limits: string) => `default ${limits}`,
    none: 'No clients yet.',
    caption: 'Every client',
    heads: [
      'Key',
      'Name',
      'Scopes',
      'Personal data',
      'Branch',
      'Limits (M/H/D)',
      'State',
      'Last token',
      'Actions',
    ],
    active: 'active',
    disabled: 'disabled',
    sandboxState: 'sandbox',
    linkMade: (key: string, until: string) =>
      `Send this link to the partner of ${key}. It opens their portal once, until ${until}; it is shown only this once.`,
  },
  tr: {
    nav: 'İstemciler',
    title: 'İstemciler',
    actions: {
      disable: 'Devre dışı bırak',
      enable: 'Etkinleştir',
      'rotate-secret': 'Gizli anahtarı yenile',
      'revoke-tokens': 'Belirteçleri iptal et',
    },
    done: {
      disable: (key) => `${key} devre dışı bırakıldı; belirteçleri artık çalışmıyor.`,
      enable: (key) => `${key} etkinleştirildi; yeni belirteç istemesi gerekiyor.`,
      'rotate-secret': (key) =>
        `${key} için yeni gizli anahtar oluşturuldu; belirteçleri artık çalışmıyor.`,
      'revoke-tokens': (key) => `${key} istemcisinin çalışan belirteci kalmadı.`,
    },
    endedNote: (ids) =>
      `Onları oluşturan kimlik bilgileri sona erdiği için devre dışı bırakılan webhook abonelikleri (credentials-ended): ${ids}; Webhook'lar sayfasına bakın.`,
    created: 'İstemci oluşturuldu.',
    newSecret: 'Yeni gizli anahtar oluşturuldu.',
    giveThese: 'Bunları iş ortağına iletin: gizli anahtar yalnızca bu kez gösteriliyor.',
    newClient: 'Yeni istemci',
    name: 'Ad',
    sandbox: 'Sandbox istemcisi',
    sandboxHint:
      'Anahtarı sbx_ ile başlar; belirteçleri gerçek kayıtları değil, sandbox’ın üretilmiş kulübünü okur.',
    create: 'İstemci oluştur',
    editOf: (name) => `Düzenle: ${name}`,
    actionOf: (action, name) => `${action}: ${name}`,
    portalLink: 'Portal bağlantısı',
    portalLinkOf: (name) => `Portal bağlantısı: ${name}`,
    defaultLimits: (limits) => `varsayılan ${limits}`,
    none: 'Henüz istemci yok.',
    caption: 'Tüm istemciler',
    heads: [
      'Anahtar',
      'Ad',
      'Kapsamlar',
      'Kişisel veriler',
      'Şube',
      'Sınırlar (D/S/G)',
      'Durum',
      'Son belirteç',
      'İşlemler',
    ],
    active: 'etkin',
    disabled: 'devre dışı',
    sandboxState: 'sandbox',
    linkMade: (key, until) =>
      `Bu bağlantıyı ${key} istemcisinin iş ortağına gönderin. Portalı ${until} tarihine kadar bir kez açar; yalnızca bu kez gösteriliyor.`,
  },
});

/** The page's words in one language. */
type OwnWords = ReturnType<typeof words>;

/** The client's subscriptions an action left disabled, to look at on the webhooks page. */
const endedNote = (w: OwnWords, ids: readonly number[] | undefined) =>
  ids && ids.length > 0 ? ` ${w.endedNote(ids.join(', '))}` : '';

/** A new secret, with the key it goes with, for the operator to give the partner. */
const secretOf = (w: OwnWords, made: string, clientKey: string, secret: string, note?: string) =>
  ({
    kind: 'secret',
    message: `${made} ${w.giveThese}`,
    note: note?.trim() || undefined,
    shown: [
      ['client_key', clientKey],
      ['client_secret', secret],
    ],
  }) as const;

function CreateForm(props: { config: Config; t: Messages; w: OwnWords }) {
  const { w } = props;
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

function Actions(props: { client: ListedClient; t: Messages; w: OwnWords }) {
  const { client_key: key, name, is_active: active } = props.client;
  const { w } = props;
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

function limitsOf(client: ListedClient, config: Config, w: OwnWords) {
  const d = config.rateLimit;
  return client.rate_limit_minute === null
    ? w.defaultLimits(`${d.perMinute}/${d.perHour}/${d.perDay}`)
    : `${client.rate_limit_minute}/${client.rate_limit_hour}/${client.rate_limit_day}`;
}

function stateText(client: ListedClient, w: OwnWords) {
  const state = client.is_active ? w.active : w.disabled;
  return clubOf(client.client_key) === 'sandbox' ? `${state}, ${w.sandboxState}` : state;
}

function ClientsTable(props: {
  clients: ListedClient[];
  config: Config;
  t: Messages;
  w: OwnWords;
  format: Format;
}) {
  const { t, w, format } = props;
  if (props.clients.length === 0) return <p safe>{w.none}</p>;
  return (
    <div class="scroll">
      <table>
        <caption safe>{w.caption}</caption>
        <Heads names={w.heads} />
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
              <td safe>{limitsOf(c, props.config, w)}</td>
              <td safe>{stateText(c, w)}</td>
              <td>
                {c.last_used_at ? (
                  <At at={c.last_used_at} text={format.moment(c.last_used_at)} />
                ) : (
                  escapeHtml(t.common.never)
                )}
              </td>
              <Actions client={c} t={t} w={w} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const clientKey = z.object({ key: z.string() });

export { words as clientsWords };

export const clientsPage = definePage({
  area: CONSOLE_AREA,
  path: PAGE,
  title: (language) => words(language).title,
  nav: (language) => words(language).nav,
  load: ({ services }) => listClientsWithLastUse(services.db),
  view: (clients, { services, t, format, locale }) => {
    const w = words({ locale });
    return (
      <>
        <ClientsTable clients={clients} config={services.config} t={t} w={w} format={format} />
        <CreateForm config={services.config} t={t} w={w} />
      </>
    );
  },
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
      run: async ({ services, who, body, locale }) => {
        const w = words({ locale });
        const created = await createClientAs(services, who, {
          ...body,
          sandbox: body.sandbox?.includes('yes') ?? false,
        });
        return secretOf(w, w.created, created.client_key, created.client_secret);
      },
    }),
    consoleAction({
      path: '/:key/:action',
      params: clientKey.extend({ action: z.enum(CLIENT_ACTIONS) }),
      run: async ({ services, who, params: { key, action }, locale }) => {
        const w = words({ locale });
        const done = await applyClientAction(services, who, action, key);
        const note = endedNote(w, done.subscriptions_disabled);
        return done.client_secret === undefined
          ? { kind: 'done', message: `${w.done[action](key)}${note}` }
          : secretOf(w, w.newSecret, key, done.client_secret, note);
      },
    }),
    consoleAction({
      path: '/:key/portal-link',
      params: clientKey,
      run: async ({ services, who, params: { key }, locale, format }) => {
        const w = words({ locale });
        const link = await makePortalLink(services, who, key, LINK_TTL_MS);
        return {
          kind: 'secret',
          message: w.linkMade(key, format.moment(link.expiresAt)),
          shown: [[w.portalLink, link.url]],
        };
      },
    }),
  ],
});
