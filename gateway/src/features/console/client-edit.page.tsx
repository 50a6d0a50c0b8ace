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
import { consoleAction, definePage } from '../../page-services.js';
import { findClientByKey, type ApiClientRecord } from '../clients/clients.repository.js';
import { editClientAs } from '../clients/clients.service.js';
import { ClientFields } from './client-fields.js';

const CLIENTS = `${CONSOLE}/clients`;

function EditForm(props: { client: ApiClientRecord; config: Config; t: Messages }) {
  const { client, t } = props;
  return (
    <PostForm action={`${CLIENTS}/${encodeURIComponent(client.client_key)}/edit`} class="stack">
      {client.data_classes_review ? (
        <Notice kind="error">
          <span safe>{t.clientEdit.review}</span>
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
  title: { of: ({ t }, client) => t.clientEdit.title(client.name) },
  view: (client, { services, t }) => (
    <>
      <p>
        {escapeHtml(t.clientEdit.intro[0])} <code safe>{client.client_key}</code>
        {escapeHtml(t.clientEdit.intro[1])}{' '}
        <a href={CLIENTS} safe>
          {t.clientEdit.back}
        </a>
      </p>
      <EditForm client={client} config={services.config} t={t} />
    </>
  ),
  actions: [
    consoleAction({
      params: z.object({ key: z.string() }),
      // The form always sends `data` (data-classes-field.tsx); a post without it leaves the
      // classes as they are.
      body: z.object({ scopes: tickedList, data: tickedList, limits: trimmed, branch: trimmed }),
      run: async ({ services, who, params: { key }, body, t }) => {
        const changed = await editClientAs(services, who, key, body);
        const { changes } = t.clientEdit;
        const names = changed.map((name) => changes[name] ?? name).join(', ');
        const message =
          changed.length === 0 ? t.clientEdit.nothing : t.clientEdit.saved(key, names);
        return { kind: 'done', message };
      },
    }),
  ],
});
