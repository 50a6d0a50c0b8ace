// The partner's webhook subscriptions: the list with each one's events by state, and a new one
// (its signing secret shown this once), through the webhook service's `subscribe`, as the API's
// POST /webhooks. The types offered are GET /webhooks/event-types' for the client's scopes. Without the webhooks:manage scope, the pages say why they are closed.
import type { Request, Response, Router } from 'express';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { parseInput } from '../../http/validation.js';
import { sendPage } from '../../pages/layout.js';
import { eventTypesFor } from '../webhooks/webhooks.event-types.js';
import { createBody } from '../webhooks/webhooks.schemas.js';
import { OutcomeNotice, refusedOr, type Outcome } from './outcome.js';
import {
  PortalPage,
  portalClient,
  callerOf,
  partnerCaller,
  type PortalClient,
} from './portal-page.js';
import { PORTAL } from './portal-paths.js';
import type { PortalDeps } from './portal-deps.js';

export const WEBHOOKS = `${PORTAL}/webhooks`;
const MANAGE = 'webhooks:manage';

type Listed = Awaited<ReturnType<PortalDeps['webhooks']['list']>>[number];

function SubscriptionsTable(props: { rows: Listed[] }) {
  if (props.rows.length === 0) return <p>No subscription yet.</p>;
  return (
    <div class="scroll">
      <table id="subscriptions">
        <caption>Your webhook subscriptions</caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              Id
            </th>
            <th scope="col">URL</th>
            <th scope="col">Description</th>
            <th scope="col">Types</th>
            <th scope="col">State</th>
          </tr>
        </thead>
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
              <td safe>{s.enabled ? 'enabled' : `disabled (${s.disabled_reason ?? ''})`}</td>
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
  client: PortalClient;
  legend: string;
  checked?: readonly string[];
}) {
  return (
    <fieldset>
      <legend safe>{`Event types (none ticked: ${props.legend})`}</legend>
      <div class="scopes">
        {eventTypesFor(callerOf(props.client).scopes).map(({ type }) => (
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

function CreateForm(props: { client: PortalClient; csrf: string }) {
  return (
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">Add an endpoint</h2>
      <form method="post" action={WEBHOOKS} class="stack">
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <label for="url">Endpoint URL</label>
        <input id="url" name="url" type="url" required maxlength="2048" autocomplete="off" />
        <label for="description">Description (optional)</label>
        <input id="description" name="description" maxlength="500" autocomplete="off" />
        <TypesFieldset client={props.client} legend="every type your scopes allow" />
        <button type="submit">Add endpoint</button>
      </form>
    </section>
  );
}

async function renderList(
  req: Request,
  res: Response,
  deps: PortalDeps,
  outcome?: Outcome,
  status = 200,
) {
  const client = portalClient(res);
  const rows = await deps.webhooks.list(client.id);
  // After a form the address stays the page's own, so reloading it repeats nothing.
  res.set('HX-Push-Url', WEBHOOKS);
  await sendPage(
    res,
    <PortalPage req={req} res={res} title="Webhooks" current={WEBHOOKS}>
      <OutcomeNotice outcome={outcome} />
      <SubscriptionsTable rows={rows} />
      <CreateForm client={client} csrf={csrfToken(req)} />
    </PortalPage>,
    status,
  );
}

/** A form field that may arrive once (a string) or many times (a list). */
export const list = (value: unknown) =>
  Array.isArray(value) ? value : typeof value === 'string' ? [value] : undefined;
export const text = (value: unknown) =>
  typeof value === 'string' && value !== '' ? value : undefined;

export function webhooksPage(router: Router, deps: PortalDeps): void {
  router.use(WEBHOOKS, async (req, res, next) => {
    if (portalClient(res).scopes.includes(MANAGE)) return next();
    await sendPage(
      res,
      <PortalPage req={req} res={res} title="Webhooks" current={WEBHOOKS}>
        <OutcomeNotice
          outcome={{
            kind: 'error',
            message: `Your client does not hold the ${MANAGE} scope: ask your API operator for it to manage webhooks.`,
          }}
        />
      </PortalPage>,
      403,
    );
  });

  router.get(WEBHOOKS, (req, res) => renderList(req, res, deps));

  router.post(WEBHOOKS, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const [outcome, status] = await refusedOr(async (): Promise<Outcome> => {
      const input = parseInput(createBody, {
        url: text(body.url) ?? '',
        types: list(body.types),
        description: text(body.description),
      });
      const created = await deps.webhooks.asPartner(partnerCaller(req, res)).subscribe(input);
      return {
        kind: 'secret',
        message: `Subscription ${created.id} added: deliveries to it are signed with this secret.`,
        label: 'Signing secret',
        secret: created.secret,
      };
    });
    await renderList(req, res, deps, outcome, status);
  });
}
