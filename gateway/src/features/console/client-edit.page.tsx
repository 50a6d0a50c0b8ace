// Editing a client's scopes, data classes, limits and branch from the console, through the
// service behind the CLI's set-scopes, grant, set-limits and set-branch (clients.service.ts
// editClientAs): only what the form changes is applied, and each change is one record of the
// operator audit.
import { escapeHtml } from '@kitajs/html';
import { z } from 'zod';
import type { Config } from '#common/config.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { tickedList, trimmed } from '../../pages/fields.js';
import { Notice, PostForm } from '../../pages/layout.js';
import type { Messages } from '../../pages/messages/index.js';
import { pageWords } from '../../pages/page-words.js';
import { consoleAction, definePage } from '../../page-services.js';
import { findClientByKey, type ApiClientRecord } from '../clients/clients.repository.js';
import { editClientAs } from '../clients/clients.service.js';
import { ClientFields } from './client-fields.js';

const CLIENTS = `${CONSOLE}/clients`;

const words = pageWords({
  en: {
    title: (name: string) => `Edit ${name}`,
    review:
      'Made before data classes existed, this client receives every class. Choose what it needs and save: until then it is listed as "all classes: review".',
    intro: ['Client', '. Changes apply to its live tokens, on every gateway, within a second.'],
    back: 'Back to every client',
    nothing: 'Nothing changed.',
    saved: (key: string, changes: string) => `${key}: ${changes} saved.`,
  },
  tr: {
    title: (name) => `${name} düzenleniyor`,
    review:
      'Bu istemci veri sınıflarından önce oluşturulduğu için her sınıfı alıyor. İhtiyacı olanları seçip kaydedin: o zamana kadar listede "tüm sınıflar: gözden geçirilmeli" olarak görünür.',
    intro: [
      'İstemci',
      '. Değişiklikler, geçerli belirteçlerine tüm ağ geçitlerinde bir saniye içinde uygulanır.',
    ],
    back: 'Tüm istemcilere dön',
    nothing: 'Hiçbir şey değişmedi.',
    saved: (key, changes) => `${key}: ${changes} kaydedildi.`,
  },
});

/** The page's own words in one language. */
type OwnWords = ReturnType<typeof words>;

function EditForm(props: { client: ApiClientRecord; config: Config; t: Messages; w: OwnWords }) {
  const { client, t, w } = props;
  return (
    <PostForm action={`${CLIENTS}/${encodeURIComponent(client.client_key)}/edit`} class="stack">
      {client.data_classes_review ? (
        <Notice kind="error">
          <span safe>{w.review}</span>
        </Notice>
      ) : (
        ''
      )}
      <ClientFields client={client} config={props.config} t={t} />
      <button type="submit" safe>
        {t.common.saveChanges}
      </button>
    </PostForm>
  );
}

export const clientEditPage = definePage({
  area: CONSOLE_AREA,
  path: `${CLIENTS}/:key/edit`,
  current: CLIENTS,
  params: z.object({ key: z.string() }),
  load: ({ services, params }) => findClientByKey(services.db, params.key),
  title: { of: (language, client) => words(language).title(client.name) },
  view: (client, { services, t, locale }) => {
    const w = words({ locale });
    return (
      <>
        <p>
          {escapeHtml(w.intro[0])} <code safe>{client.client_key}</code>
          {escapeHtml(w.intro[1])}{' '}
          <a href={CLIENTS} safe>
            {w.back}
          </a>
        </p>
        <EditForm client={client} config={services.config} t={t} w={w} />
      </>
    );
  },
  actions: [
    consoleAction({
      params: z.object({ key: z.string() }),
      // The form always sends `data` (data-classes-field.tsx); a post without it leaves the
      // classes as they are.
      body: z.object({ scopes: tickedList, data: tickedList, limits: trimmed, branch: trimmed }),
      run: async ({ services, who, params: { key }, body, t, locale }) => {
        const w = words({ locale });
        const changed = await editClientAs(services, who, key, body);
        const { changes } = t.clientEdit;
        const names = changed.map((name) => changes[name] ?? name).join(', ');
        const message = changed.length === 0 ? w.nothing : w.saved(key, names);
        return { kind: 'done', message };
      },
    }),
  ],
});
