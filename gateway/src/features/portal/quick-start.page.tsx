// A sandbox client's first page (docs/decisions/0024-sandbox.md): its own copyable curl lines
// from a token to a first read, a webhook subscription to a URL it types, a change made on demand
// in the sandbox's club, the deliveries that follow, and how to verify one with the Standard
// Webhooks package. Each form is one call into the service the API's own endpoint uses. A live
// client's portal has none: its path is the area's 404 for it.
import { escapeHtml } from '@kitajs/html';
import { z } from 'zod';
import { clubOf } from '#api/sandbox.js';
import { PORTAL, PORTAL_AREA, QUICK_START, type PartnerClient } from '../../pages/areas.js';
import { formOf } from '../../pages/fields.js';
import { Field } from '../../pages/form-parts.js';
import { At } from '../../pages/language.js';
import { PostForm } from '../../pages/layout.js';
import type { Format } from '../../pages/locale.js';
import { pageWords } from '../../pages/page-words.js';
import { Heads } from '../../pages/tables.js';
import { definePage, portalAction } from '../../page-services.js';
import { SIMULATED_TYPES } from '../sandbox/sandbox.events.js';
import { eventTypesFor } from '../webhooks/webhooks.event-types.js';
import { createBody } from '../webhooks/webhooks.schemas.js';
import type { WebhookService } from '../webhooks/webhooks.service.js';
import { partnerOf } from './partner.js';
import { shownOnce } from './webhooks.page.js';

/** The last tries shown under "Its delivery". */
const TRIES_SHOWN = 10;

const words = pageWords({
  en: {
    nav: 'Quick start',
    title: 'Quick start',
    intro:
      'Your client reads the sandbox: a generated club behind the same API, change feed and webhooks as a live one, never a real member. Follow the steps in order.',
    token: '1. A token',
    tokenText: [
      'With the client secret you were given in',
      '(Credentials makes a new one), and',
      'installed:',
    ],
    tokenLabel: 'The token request',
    read: '2. A first read',
    readLabel: 'The first read',
    webhook: '3. A webhook',
    endpoint: "Your endpoint's URL",
    subscribe: 'Subscribe to every type your scopes allow',
    change: '4. A change',
    type: 'Type',
    makeChange: 'Make a change',
    shell: 'The same from a shell:',
    shellLabel: 'A change from a shell',
    delivery: '5. Its delivery',
    deliveryText: 'Within seconds of a change, its delivery is tried here (reload the page).',
    verify: 'Verify a delivery',
    verifyLabel: 'The verification',
    noDelivery: 'No delivery yet.',
    triesCaption: 'The latest tries of your subscriptions (UTC)',
    triesHeads: ['Subscription', 'Event', 'Outcome', 'Status', 'At'],
    added: (id: number) =>
      `Subscription ${id} added: its deliveries are signed with this secret, which the snippet below now holds.`,
    notReadable: (type: string) => `"${type}" is not a type your scopes read.`,
    made: (type: string, id: string, made: string) => `${type} ${id} ${made}: its event follows.`,
    /** How the sandbox's change came about (sandbox.events.ts `made`). */
    madeKinds: { created: 'created', changed: 'changed' },
    nothingToCopy: (type: string) => `No ${type} row to copy in the sandbox's club.`,
  },
  tr: {
    nav: 'Hızlı başlangıç',
    title: 'Hızlı başlangıç',
    intro:
      'İstemciniz sandbox’ı okur: canlı bir kulüple aynı API, değişiklik akışı ve webhook’ların arkasında üretilmiş bir kulüp; hiçbir gerçek üye yok. Adımları sırayla izleyin.',
    token: '1. Belirteç',
    tokenText: [
      'Size verilen istemci gizli anahtarı',
      'değişkenindeyken (Kimlik bilgileri sayfası yenisini oluşturur) ve',
      'kuruluyken:',
    ],
    tokenLabel: 'Belirteç isteği',
    read: '2. İlk okuma',
    readLabel: 'İlk okuma',
    webhook: '3. Webhook',
    endpoint: 'Uç noktanızın URL’si',
    subscribe: 'Kapsamlarınızın izin verdiği tüm türlere abone ol',
    change: '4. Değişiklik',
    type: 'Tür',
    makeChange: 'Değişiklik yap',
    shell: 'Aynısı kabuktan:',
    shellLabel: 'Kabuktan değişiklik',
    delivery: '5. Teslimatı',
    deliveryText:
      'Bir değişiklikten birkaç saniye sonra teslimatı burada denenir (sayfayı yenileyin).',
    verify: 'Teslimatı doğrula',
    verifyLabel: 'Doğrulama',
    noDelivery: 'Henüz teslimat yok.',
    triesCaption: 'Aboneliklerinizin son denemeleri (UTC)',
    triesHeads: ['Abonelik', 'Olay', 'Sonuç', 'Durum kodu', 'Zaman'],
    added: (id) =>
      `${id} numaralı abonelik eklendi: teslimatları bu anahtarla imzalanır; aşağıdaki örnek artık onu içeriyor.`,
    notReadable: (type) => `"${type}" kapsamlarınızın okuduğu bir tür değil.`,
    made: (type, id, made) => `${type} ${id} ${made}: olayı ardından gelecek.`,
    madeKinds: { created: 'oluşturuldu', changed: 'değiştirildi' },
    nothingToCopy: (type) => `Sandbox kulübünde kopyalanacak ${type} kaydı yok.`,
  },
});

/** The page's own words in one language. */
type OwnWords = ReturnType<typeof words>;

/** A shell line: `value` in single quotes, its own single quotes closed and reopened. */
const quoted = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

function curlLines(base: string, client: PartnerClient) {
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
  tries: Awaited<ReturnType<WebhookService['attempts']>>;
};

async function latestTries(webhooks: WebhookService, client: PartnerClient): Promise<Tries[]> {
  const subscriptions = await webhooks.list(client.id);
  return Promise.all(
    subscriptions.map(async (s) => ({
      subscription: s.id,
      url: s.url,
      tries: await webhooks.attempts(s.id, { skip: 0, take: TRIES_SHOWN }),
    })),
  );
}

function TriesTable(props: { tries: Tries[]; w: OwnWords; format: Format }) {
  const { w } = props;
  const rows = props.tries.flatMap((s) =>
    s.tries.map((a) => ({ ...a, url: s.url, id: s.subscription })),
  );
  if (rows.length === 0)
    return (
      <p id="no-deliveries" safe>
        {w.noDelivery}
      </p>
    );
  return (
    <div class="scroll">
      <table id="deliveries">
        <caption safe>{w.triesCaption}</caption>
        <Heads names={w.triesHeads} numeric={[w.triesHeads[3]!]} />
        <tbody>
          {rows.map((a) => (
            <tr>
              <td>
                <a href={`${PORTAL}/webhooks/${a.id}`}>
                  <code safe>{a.url}</code>
                </a>
              </td>
              <td safe>{a.event.event_type}</td>
              <td safe>{a.outcome}</td>
              <td class="num" safe>
                {a.status_code === null ? '' : String(a.status_code)}
              </td>
              <td>
                <At at={a.attempted_at} text={props.format.utc(a.attempted_at)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The simulated types the client's scopes read, as the API's POST /sandbox/events allows. */
const typesOf = (client: PartnerClient) => {
  const read = eventTypesFor(client.scopes).map(({ type }) => type);
  return SIMULATED_TYPES.filter((type) => read.includes(type));
};

export const quickStartPage = definePage({
  area: PORTAL_AREA,
  path: QUICK_START,
  title: (language) => words(language).title,
  nav: (language) => words(language).nav,
  // A live client's portal has none, and its forms do nothing for one: the area's 404.
  only: {
    allows: ({ client }, { sandboxEvents }) =>
      clubOf(client.client_key) === 'sandbox' && sandboxEvents !== undefined,
  },
  load: async ({ services, who }) => ({ tries: await latestTries(services.webhooks, who.client) }),
  view: ({ tries }, { services, who, outcome, format, locale }) => {
    const w = words({ locale });
    // The API is on the portal's own origin, as links to it are made (PUBLIC_BASE_URL).
    const lines = curlLines(services.config.console.publicOrigin, who.client);
    const secret = outcome?.kind === 'secret' ? (outcome.shown[0]?.[1] ?? 'whsec_…') : 'whsec_…';
    return (
      <>
        <p safe>{w.intro}</p>
        <h2 safe>{w.token}</h2>
        <p>
          {escapeHtml(w.tokenText[0])} <code>CLIENT_SECRET</code> {escapeHtml(w.tokenText[1])}{' '}
          <code>jq</code> {escapeHtml(w.tokenText[2])}
        </p>
        <Code id="step-token" label={w.tokenLabel} text={lines.token} />
        <h2 safe>{w.read}</h2>
        <Code id="step-read" label={w.readLabel} text={lines.read} />
        <h2 safe>{w.webhook}</h2>
        <PostForm action={`${QUICK_START}/webhook`} class="stack">
          <Field
            id="url"
            label={w.endpoint}
            type="url"
            required
            maxlength="2048"
            autocomplete="off"
          />
          <button type="submit" safe>
            {w.subscribe}
          </button>
        </PostForm>
        <h2 safe>{w.change}</h2>
        <PostForm action={`${QUICK_START}/change`} class="stack">
          <label for="type" safe>
            {w.type}
          </label>
          <select id="type" name="type">
            {typesOf(who.client).map((type) => (
              <option value={type} selected={type === 'members'} safe>
                {type}
              </option>
            ))}
          </select>
          <button type="submit" safe>
            {w.makeChange}
          </button>
        </PostForm>
        <p safe>{w.shell}</p>
        <Code id="step-change" label={w.shellLabel} text={lines.change} />
        <h2 safe>{w.delivery}</h2>
        <p safe>{w.deliveryText}</p>
        <TriesTable tries={tries} w={w} format={format} />
        <h2 safe>{w.verify}</h2>
        <Code id="verify-snippet" label={w.verifyLabel} text={verifySnippet(secret)} />
      </>
    );
  },
  actions: [
    portalAction({
      path: '/webhook',
      body: formOf(createBody),
      run: async ({ services, who, body, t, locale }) => {
        const created = await services.webhooks.asPartner(partnerOf(who)).subscribe(body);
        return shownOnce(t, words({ locale }).added(created.id), created.secret);
      },
    }),
    portalAction({
      path: '/change',
      body: z.object({ type: z.string() }),
      run: async ({ services, who, body, locale }) => {
        const w = words({ locale });
        if (!typesOf(who.client).includes(body.type)) {
          return { kind: 'error', message: w.notReadable(body.type) };
        }
        const made = await services.sandboxEvents!.make(body.type, undefined, who.client.branch_id);
        return made
          ? { kind: 'done', message: w.made(made.type, String(made.id), w.madeKinds[made.made]) }
          : { kind: 'error', message: w.nothingToCopy(body.type) };
      },
    }),
  ],
});
