// A sandbox client's first page (docs/decisions/0024-sandbox.md): its own copyable curl lines
// from a token to a first read, a webhook subscription to a URL it types, a change made on demand
// in the sandbox's club, the deliveries that follow, and how to verify one with the Standard
// Webhooks package. Each form is one call into the service the API's own endpoint uses.
import { clubOf } from '#api/sandbox.js';
import type { Request, RequestHandler, Response, Router } from 'express';
import { parseInput } from '../../http/validation.js';
import { CSRF_FIELD, csrfToken } from '../../pages/forms.js';
import { sendPage } from '../../pages/layout.js';
import type { PortalDeps } from './portal-deps.js';
import { SIMULATED_TYPES } from '../sandbox/sandbox.events.js';
import { createBody } from '../webhooks/webhooks.schemas.js';
import { eventTypesFor } from '../webhooks/webhooks.event-types.js';
import { OutcomeNotice, refusedOr, type Outcome } from './outcome.js';
import { PortalPage, partnerCaller, portalClient, type PortalClient } from './portal-page.js';
import { PORTAL } from './portal-paths.js';

export const QUICK_START = `${PORTAL}/quick-start`;
const ADD_WEBHOOK = `${QUICK_START}/webhook`;
const MAKE_CHANGE = `${QUICK_START}/change`;

/** The last tries shown under "Its delivery". */
const TRIES_SHOWN = 10;

export const isSandbox = (client: Pick<PortalClient, 'client_key'>) =>
  clubOf(client.client_key) === 'sandbox';

/** A shell line: `value` in single quotes, its own single quotes closed and reopened. */
const quoted = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

function curlLines(base: string, client: PortalClient) {
  const credentials = `{"client_key":"${client.client_key}","client_secret":"'"$CLIENT_SECRET"'"}`;
  return {
    token:
      `export TOKEN=$(curl -s -X POST ${quoted(`${base}/api/v1/auth/token`)} ` +
      `-H 'Content-Type: application/json' -d '${credentials}' | jq -r .data.access_token)`,
    read: `curl -s -H "Authorization: Bearer $TOKEN" ${quoted(`${base}/api/v1/members?limit=5`)}`,
    change:
      `curl -s -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' ` +
      `${quoted(`${base}/api/v1/sandbox/events`)} -d '{"type":"members"}'`,
  };
}

/** Verifying a delivery with the Standard Webhooks reference package, as a receiver would. */
function verifySnippet(secret: string) {
  return [
    "import { Webhook } from 'standardwebhooks';",
    '',
    `const webhook = new Webhook('${secret}');`,
    '// body: the raw request body as received; headers: webhook-id, webhook-timestamp,',
    '// webhook-signature. verify() throws when the signature or the time does not hold.',
    'const event = webhook.verify(body, headers);',
    'console.log(event.type, event.data.id);',
  ].join('\n');
}

/** A block to copy; a long line scrolls within it instead of widening the page. */
function Code(props: { id: string; text: string; label: string }) {
  // Focusable, so a keyboard can scroll it (axe: scrollable-region-focusable).
  return (
    <div class="scroll" tabindex="0" role="region" aria-label={props.label}>
      <pre>
        <code id={props.id} safe>
          {props.text}
        </code>
      </pre>
    </div>
  );
}

type Tries = {
  subscription: number;
  url: string;
  tries: Awaited<ReturnType<PortalDeps['webhooks']['attempts']>>;
};

async function latestTries(deps: PortalDeps, client: PortalClient): Promise<Tries[]> {
  const subscriptions = await deps.webhooks.list(client.id);
  return Promise.all(
    subscriptions.map(async (s) => ({
      subscription: s.id,
      url: s.url,
      tries: await deps.webhooks.attempts(s.id, { skip: 0, take: TRIES_SHOWN }),
    })),
  );
}

function TriesTable(props: { tries: Tries[] }) {
  const rows = props.tries.flatMap((s) =>
    s.tries.map((t) => ({ ...t, url: s.url, id: s.subscription })),
  );
  if (rows.length === 0) return <p id="no-deliveries">No delivery yet.</p>;
  return (
    <div class="scroll">
      <table id="deliveries">
        <caption>The latest tries of your subscriptions (UTC)</caption>
        <thead>
          <tr>
            <th scope="col">Subscription</th>
            <th scope="col">Event</th>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">
              Status
            </th>
            <th scope="col">At</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr>
              <td>
                <a href={`${PORTAL}/webhooks/${t.id}`}>
                  <code safe>{t.url}</code>
                </a>
              </td>
              <td safe>{t.event.event_type}</td>
              <td safe>{t.outcome}</td>
              <td class="num" safe>
                {t.status_code === null ? '' : String(t.status_code)}
              </td>
              <td safe>{t.attempted_at.toISOString().replace('T', ' ').slice(0, 19)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

async function render(
  req: Request,
  res: Response,
  deps: PortalDeps,
  outcome?: Outcome,
  status = 200,
) {
  const client = portalClient(res);
  // The API is on the page's own origin, as the browser reached it.
  const lines = curlLines(`${req.protocol}://${req.get('host') ?? 'localhost'}`, client);
  const tries = await latestTries(deps, client);
  const types = eventTypesFor(client.scopes).map(({ type }) => type);
  const secret = outcome?.kind === 'secret' ? outcome.secret : 'whsec_…';
  res.set('HX-Push-Url', QUICK_START);
  await sendPage(
    res,
    <PortalPage req={req} res={res} title="Quick start" current={QUICK_START}>
      <OutcomeNotice outcome={outcome} />
      <p>
        Your client reads the sandbox: a generated club behind the same API, change feed and
        webhooks as a live one, never a real member. Follow the steps in order.
      </p>
      <h2>1. A token</h2>
      <p>
        With the client secret you were given in <code>CLIENT_SECRET</code> (Credentials makes a new
        one), and <code>jq</code> installed:
      </p>
      <Code id="step-token" label="The token request" text={lines.token} />
      <h2>2. A first read</h2>
      <Code id="step-read" label="The first read" text={lines.read} />
      <h2>3. A webhook</h2>
      <form method="post" action={ADD_WEBHOOK} class="stack">
        <input type="hidden" name={CSRF_FIELD} value={csrfToken(req)} />
        <label for="url">Your endpoint's URL</label>
        <input id="url" name="url" type="url" required maxlength="2048" autocomplete="off" />
        <button type="submit">Subscribe to every type your scopes allow</button>
      </form>
      <h2>4. A change</h2>
      <form method="post" action={MAKE_CHANGE} class="stack">
        <input type="hidden" name={CSRF_FIELD} value={csrfToken(req)} />
        <label for="type">Type</label>
        <select id="type" name="type">
          {SIMULATED_TYPES.filter((type) => types.includes(type)).map((type) => (
            <option value={type} selected={type === 'members'} safe>
              {type}
            </option>
          ))}
        </select>
        <button type="submit">Make a change</button>
      </form>
      <p>The same from a shell:</p>
      <Code id="step-change" label="A change from a shell" text={lines.change} />
      <h2>5. Its delivery</h2>
      <p>Within seconds of a change, its delivery is tried here (reload the page).</p>
      <TriesTable tries={tries} />
      <h2>Verify a delivery</h2>
      <Code id="verify-snippet" label="The verification" text={verifySnippet(secret)} />
    </PortalPage>,
    status,
  );
}

const typeBody = (value: unknown) => (typeof value === 'string' ? value : '');

export function quickStartPage(router: Router, deps: PortalDeps): void {
  // A live client's portal has no quick start (the area's 404): the sandbox is not its to change.
  const sandboxOnly: RequestHandler = (_req, res, next) => {
    next(isSandbox(portalClient(res)) && deps.sandboxEvents ? undefined : 'route');
  };

  router.get(QUICK_START, sandboxOnly, (req, res) => render(req, res, deps));

  router.post(ADD_WEBHOOK, sandboxOnly, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const [outcome, status] = await refusedOr(async (): Promise<Outcome> => {
      const input = parseInput(createBody, { url: typeBody(body.url) });
      const created = await deps.webhooks.asPartner(partnerCaller(req, res)).subscribe(input);
      return {
        kind: 'secret',
        message: `Subscription ${created.id} added: its deliveries are signed with this secret, which the snippet below now holds.`,
        label: 'Signing secret',
        secret: created.secret,
      };
    });
    await render(req, res, deps, outcome, status);
  });

  router.post(MAKE_CHANGE, sandboxOnly, async (req, res) => {
    const client = portalClient(res);
    const type = typeBody((req.body as Record<string, unknown>).type);
    const [outcome, status] = await refusedOr(async (): Promise<Outcome> => {
      const allowed = eventTypesFor(client.scopes).some((t) => t.type === type);
      if (!SIMULATED_TYPES.includes(type) || !allowed) {
        return { kind: 'error', message: `"${type}" is not a type your scopes read.` };
      }
      const made = await deps.sandboxEvents!.make(type, undefined, client.branch_id);
      return made
        ? { kind: 'done', message: `${made.type} ${made.id} ${made.made}: its event follows.` }
        : { kind: 'error', message: `No ${type} row to copy in the sandbox's club.` };
    });
    await render(req, res, deps, outcome, status);
  });
}
