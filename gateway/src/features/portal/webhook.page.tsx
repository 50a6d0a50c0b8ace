// One of the partner's webhook subscriptions: its tries with the status, duration and answer its
// endpoint gave (shown as text, never rendered), filterable by outcome; sending it a test event,
// editing it (PATCH /webhooks/{id}'s rules, through the service's `update`), replaying its events
// since a time, rotating its signing secret, enabling it. Another client's subscription is not
// found.
import type { Request, Response, Router } from 'express';
import { DELIVERY_OUTCOMES, type DeliveryOutcome } from '#api/webhooks/vocabulary.js';
import { CREDENTIALS_ENDED } from '#api/webhooks/credentials.js';
import { notFound, validationError } from '../../http/errors.js';
import { parseInput } from '../../http/validation.js';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { sendPage } from '../../pages/layout.js';
import { TRIES_SHOWN, TriesTable } from '../../pages/webhook-tries.js';
import { OutcomeNotice, refusedOr, type Outcome } from './outcome.js';
import { partnerCaller, PortalPage, portalClient, type PortalClient } from './portal-page.js';
import type { Partner } from '../webhooks/webhooks.service.js';
import type { PortalDeps } from './portal-deps.js';
import { eventTypesFor } from '../webhooks/webhooks.event-types.js';
import { updateBody } from '../webhooks/webhooks.schemas.js';
import { list, text, TypesFieldset, WEBHOOKS } from './webhooks.page.js';

type Subscription = NonNullable<Awaited<ReturnType<PortalDeps['webhooks']['find']>>>;

const minuteOf = (date: Date) => date.toISOString().slice(0, 16);

function ActionButton(props: { id: number; action: string; label: string; csrf: string }) {
  return (
    <form method="post" action={`${WEBHOOKS}/${props.id}/${props.action}`}>
      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
      <button type="submit" safe>
        {props.label}
      </button>
    </form>
  );
}

function Actions(props: { s: Subscription; csrf: string }) {
  const { s, csrf } = props;
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      <div class="actions">
        {s.enabled ? '' : <ActionButton id={s.id} action="enable" label="Enable" csrf={csrf} />}
        <ActionButton id={s.id} action="test" label="Send test event" csrf={csrf} />
        <ActionButton id={s.id} action="rotate-secret" label="Rotate signing secret" csrf={csrf} />
      </div>
      <form method="post" action={`${WEBHOOKS}/${s.id}/replay`} class="stack">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <label for="since">Replay the events recorded since (UTC)</label>
        <input
          id="since"
          name="since"
          type="datetime-local"
          required
          value={minuteOf(new Date(Date.now() - 3_600_000))}
        />
        <label class="check">
          <input type="checkbox" name="failed_only" value="true" />
          <span>Only the failed ones</span>
        </label>
        <button type="submit">Replay</button>
      </form>
    </section>
  );
}

function EditForm(props: { s: Subscription; client: PortalClient; csrf: string }) {
  const { s } = props;
  return (
    <section aria-labelledby="edit-heading">
      <h2 id="edit-heading">Edit</h2>
      <form method="post" action={`${WEBHOOKS}/${s.id}/edit`} class="stack">
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <label for="edit-url">Endpoint URL</label>
        <input
          id="edit-url"
          name="url"
          type="url"
          required
          maxlength="2048"
          autocomplete="off"
          value={s.url}
        />
        <label for="edit-description">Description (empty: none)</label>
        <input
          id="edit-description"
          name="description"
          maxlength="500"
          autocomplete="off"
          value={s.description ?? ''}
        />
        <TypesFieldset
          client={props.client}
          legend="every type your scopes allow"
          checked={s.types}
        />
        <button type="submit">Save changes</button>
      </form>
    </section>
  );
}

function OutcomeFilter(props: { id: number; outcome: DeliveryOutcome | undefined }) {
  return (
    <form method="get" action={`${WEBHOOKS}/${props.id}`} class="filters">
      <label>
        Outcome
        <select name="outcome">
          <option value="" selected={props.outcome === undefined}>
            every outcome
          </option>
          {DELIVERY_OUTCOMES.map((o) => (
            <option value={o} selected={props.outcome === o}>
              {o}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}

const positiveId = (value: string) =>
  /^\d{1,9}$/.test(value) && Number(value) > 0 ? Number(value) : null;

const outcomeOf = (value: unknown) =>
  DELIVERY_OUTCOMES.find((o) => o === value) satisfies DeliveryOutcome | undefined;

/** The subscription of this partner named by the path, or null (another's is not found). */
async function ownSubscription(req: Request, res: Response, deps: PortalDeps) {
  const id = positiveId(String(req.params.id));
  return id === null ? null : deps.webhooks.find(portalClient(res).id, id);
}

async function renderSubscription(
  req: Request,
  res: Response,
  deps: PortalDeps,
  s: Subscription,
  outcome?: Outcome,
  status = 200,
) {
  const path = `${WEBHOOKS}/${s.id}`;
  const filter = outcomeOf(req.query.outcome);
  const service = deps.webhooks;
  const [tries, total] = await Promise.all([
    service.attempts(s.id, { skip: 0, take: TRIES_SHOWN }, filter),
    service.attemptCount(s.id, filter),
  ]);
  res.set('HX-Push-Url', path);
  await sendPage(
    res,
    <PortalPage req={req} res={res} title={`Subscription ${s.id}`} current={WEBHOOKS}>
      <OutcomeNotice outcome={outcome} />
      <dl class="secret">
        <dt>URL</dt>
        <dd>
          <code safe>{s.url}</code>
        </dd>
        <dt>Description</dt>
        <dd safe>{s.description ?? ''}</dd>
        <dt>Types</dt>
        <dd safe>{s.types.join(', ')}</dd>
        <dt>State</dt>
        <dd safe>{s.enabled ? 'enabled' : `disabled (${s.disabled_reason ?? ''})`}</dd>
      </dl>
      {s.disabled_reason === CREDENTIALS_ENDED ? (
        <p id="credentials-ended">
          The credentials that created this subscription or last changed its URL have ended (a
          client secret rotated, tokens revoked): check that the URL is yours before you enable it.
        </p>
      ) : (
        ''
      )}
      <Actions s={s} csrf={csrfToken(req)} />
      <EditForm s={s} client={portalClient(res)} csrf={csrfToken(req)} />
      <h2>Deliveries</h2>
      <OutcomeFilter id={s.id} outcome={filter} />
      <TriesTable tries={tries} total={total} />
      <p>
        <a href={WEBHOOKS}>Back to every subscription</a>
      </p>
    </PortalPage>,
    status,
  );
}

/** `2026-11-28T09:30` from the form, read as UTC. */
function sinceOf(value: unknown): Date {
  const text = typeof value === 'string' ? value : '';
  const at = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(text) ? Date.parse(`${text}Z`) : NaN;
  if (Number.isNaN(at)) throw validationError([{ field: 'since', message: 'YYYY-MM-DDTHH:MM' }]);
  return new Date(at);
}

type Action = (
  deps: PortalDeps,
  caller: Partner,
  s: Subscription,
  body: Record<string, unknown>,
) => Promise<Outcome>;

const ACTIONS: Record<string, Action> = {
  test: async (deps, caller, s) => {
    const result = await deps.webhooks.asPartner(caller).sendTest(s.id);
    if (!result) throw notFound();
    return { kind: 'test', result };
  },
  edit: async (deps, caller, s, body) => {
    const patch = parseInput(updateBody, {
      url: text(body.url) ?? '',
      // None ticked: every type the scopes allow, as when subscribing.
      types: list(body.types) ?? eventTypesFor(caller.scopes).map((t) => t.type),
      description: text(body.description) ?? null,
    });
    if (!(await deps.webhooks.asPartner(caller).update(s.id, patch))) throw notFound();
    return { kind: 'done', message: `Subscription ${s.id} saved.` };
  },
  enable: async (deps, caller, s) => {
    await deps.webhooks.asPartner(caller).enable(s.id);
    return { kind: 'done', message: `Subscription ${s.id} enabled: its pending events go now.` };
  },
  'rotate-secret': async (deps, caller, s) => {
    const rotated = await deps.webhooks.asPartner(caller).rotateSecret(s.id);
    return {
      kind: 'secret',
      message: 'New signing secret made: for 24 hours deliveries carry a signature under each.',
      label: 'Signing secret',
      secret: rotated!.secret,
    };
  },
  replay: async (deps, caller, s, body) => {
    const since = sinceOf(body.since);
    const replayed = await deps.webhooks
      .asPartner(caller)
      .replay(s.id, since, body.failed_only === 'true');
    return {
      kind: 'done',
      message: `${replayed ?? 0} events since ${since.toISOString()} go again.`,
    };
  },
};

export function webhookPage(router: Router, deps: PortalDeps): void {
  router.get(`${WEBHOOKS}/:id`, async (req, res, next) => {
    const s = await ownSubscription(req, res, deps);
    if (!s) return next();
    await renderSubscription(req, res, deps, s);
  });

  router.post(`${WEBHOOKS}/:id/:action`, async (req, res, next) => {
    const name = String(req.params.action);
    const action = Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined;
    const s = action ? await ownSubscription(req, res, deps) : null;
    if (!action || !s) return next();
    const body = req.body as Record<string, unknown>;
    const [outcome, status] = await refusedOr(() => action(deps, partnerCaller(req, res), s, body));
    const now = await deps.webhooks.find(portalClient(res).id, s.id);
    if (!now) return next();
    await renderSubscription(req, res, deps, now, outcome, status);
  });
}
