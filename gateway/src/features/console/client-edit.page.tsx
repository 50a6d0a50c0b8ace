// Editing a client's scopes, data classes, limits and branch from the console, through the
// service behind the CLI's set-scopes, grant, set-limits and set-branch (clients.service.ts
// editClientAs): only what the form changes is applied, and each change is one record of the
// operator audit.
import { z } from 'zod';
import { SCOPES } from '#api/scopes.js';
import type { Config } from '#common/config.js';
import { CONSOLE, CONSOLE_AREA } from '../../pages/areas.js';
import { tickedList, trimmed } from '../../pages/fields.js';
import { Notice, PostForm } from '../../pages/layout.js';
import { consoleAction, definePage } from '../../page-services.js';
import { findClientByKey, type ApiClientRecord } from '../clients/clients.repository.js';
import { branchText, limitsText } from '../clients/clients.form.js';
import { editClientAs } from '../clients/clients.service.js';
import { DataClassesField } from './data-classes-field.js';

const CLIENTS = `${CONSOLE}/clients`;

function EditForm(props: { client: ApiClientRecord; config: Config }) {
  const { client } = props;
  const d = props.config.rateLimit;
  return (
    <PostForm action={`${CLIENTS}/${encodeURIComponent(client.client_key)}/edit`} class="stack">
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
    </PostForm>
  );
}

export const clientEditPage = definePage({
  area: CONSOLE_AREA,
  path: `${CLIENTS}/:key/edit`,
  current: CLIENTS,
  params: z.object({ key: z.string() }),
  load: ({ services, params }) => findClientByKey(services.db, params.key),
  title: (client) => `Edit ${client.name}`,
  view: (client, { services }) => (
    <>
      <p>
        Client <code safe>{client.client_key}</code>. Changes apply to its live tokens, on every
        gateway, within a second. <a href={CLIENTS}>Back to every client</a>
      </p>
      <EditForm client={client} config={services.config} />
    </>
  ),
  actions: [
    consoleAction({
      params: z.object({ key: z.string() }),
      // The form always sends `data` (data-classes-field.tsx); a post without it leaves the
      // classes as they are.
      body: z.object({ scopes: tickedList, data: tickedList, limits: trimmed, branch: trimmed }),
      run: async ({ services, who, params: { key }, body }) => {
        const changed = await editClientAs(services, who, key, body);
        const message =
          changed.length === 0 ? 'Nothing changed.' : `${key}: ${changed.join(', ')} saved.`;
        return { kind: 'done', message };
      },
    }),
  ],
});
