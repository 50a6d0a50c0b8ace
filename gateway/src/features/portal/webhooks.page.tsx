// The partner's webhook subscriptions: the list with each one's events by state, and a new one
// (its signing secret shown this once), through the webhook service's `subscribe`, as the API's
// POST /webhooks. The types offered are GET /webhooks/event-types' for the client's scopes.
// Without the webhooks:manage scope, the pages say why they are closed.
import { currentScopes } from '#api/scopes.js';
import {
  PORTAL,
  PORTAL_AREA,
  type PartnerClient,
  type SignedInPartner,
} from '../../pages/areas.js';
import { formOf } from '../../pages/fields.js';
import { PostForm } from '../../pages/layout.js';
import { Heads } from '../../pages/tables.js';
import { stateOf } from '../../pages/webhook-tries.js';
import type { Outcome } from '../../pages/outcome.js';
import { definePage, portalAction } from '../../page-services.js';
import { eventTypesFor } from '../webhooks/webhooks.event-types.js';
import { createBody } from '../webhooks/webhooks.schemas.js';
import type { WebhookService } from '../webhooks/webhooks.service.js';
import { partnerOf } from './partner.js';

export const WEBHOOKS = `${PORTAL}/webhooks`;
const MANAGE = 'webhooks:manage';

/** The webhook pages are open to a client holding webhooks:manage, as the API's endpoints are. */
export const MANAGES_WEBHOOKS = {
  allows: (partner: SignedInPartner) => partner.client.scopes.includes(MANAGE),
  title: 'Webhooks',
  message: `Your client does not hold the ${MANAGE} scope: ask your API operator for it to manage webhooks.`,
};

/** A secret the partner is shown this once, under its label. */
export const shownOnce = (message: string, label: string, secret: string): Outcome => ({
  kind: 'secret',
  message: `${message} It is shown only this once: keep it now.`,
  shown: [[label, secret]],
});

type Listed = Awaited<ReturnType<WebhookService['list']>>[number];

function SubscriptionsTable(props: { rows: Listed[] }) {
  if (props.rows.length === 0) return <p>No subscription yet.</p>;
  return (
    <div class="scroll">
      <table id="subscriptions">
        <caption>Your webhook subscriptions</caption>
        <Heads names={['Id', 'URL', 'Description', 'Types', 'State']} numeric={['Id']} />
        <tbody>
          {props.rows.map((s) => (
            <tr>
              <td class="num">
                <a href={`${WEBHOOKS}/${s.id}`} aria-label={`Subscription ${s.id}`} safe>
                  {String(s.id)}
                </a>
              </td>
              <td>
                <code safe>{s.url}</code>
              </td>
              <td safe>{s.description ?? ''}</td>
              <td safe>{s.types.join(', ')}</td>
              <td safe>{stateOf(s)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The event types the client's scopes allow (GET /webhooks/event-types' list), ticked as
 * `checked`; none ticked means `legend`'s default.
 */
export function TypesFieldset(props: {
  client: PartnerClient;
  legend: string;
  checked?: readonly string[];
}) {
  return (
    <fieldset>
      <legend safe>{`Event types (none ticked: ${props.legend})`}</legend>
      <div class="scopes">
        {eventTypesFor(currentScopes(props.client)).map(({ type }) => (
          <label class="check">
            <input
              type="checkbox"
              name="types"
              value={type}
              checked={props.checked?.includes(type) ?? false}
            />
            <span safe>{type}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function CreateForm(props: { client: PartnerClient }) {
  return (
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">Add an endpoint</h2>
      <PostForm action={WEBHOOKS} class="stack">
        <label for="url">Endpoint URL</label>
        <input id="url" name="url" type="url" required maxlength="2048" autocomplete="off" />
        <label for="description">Description (optional)</label>
        <input id="description" name="description" maxlength="500" autocomplete="off" />
        <TypesFieldset client={props.client} legend="every type your scopes allow" />
        <button type="submit">Add endpoint</button>
      </PostForm>
    </section>
  );
}

export const webhooksPage = definePage({
  area: PORTAL_AREA,
  path: WEBHOOKS,
  title: 'Webhooks',
  only: MANAGES_WEBHOOKS,
  load: ({ services, who }) => services.webhooks.list(who.client.id),
  view: (rows, { who }) => (
    <>
      <SubscriptionsTable rows={rows} />
      <CreateForm client={who.client} />
    </>
  ),
  actions: [
    portalAction({
      body: formOf(createBody, ['types']),
      run: async ({ services, who, body }) => {
        const created = await services.webhooks.asPartner(partnerOf(who)).subscribe(body);
        return shownOnce(
          `Subscription ${created.id} added: deliveries to it are signed with this secret.`,
          'Signing secret',
          created.secret,
        );
      },
    }),
  ],
});
