// The commands of webhooks.cli.ts, against the read model through the webhook service, as an
// operator: owner `null`, every client's subscriptions. Both are the CLIs' composition root's
// (gateway/src/cli-services.ts).
import type { ReadModelClient } from '#common/databases.js';
import type { OpenCliServices } from '../../cli-services.js';
import { formatTable } from '../clients/table.js';
import { CliError } from '../../cli/operator-cli.js';
import { terminalJson } from '../../cli/terminal-text.js';
import { DEFAULT_DELIVERIES, MAX_DELIVERIES, USAGE, type CliArgs } from './webhooks.usage.js';
import { cliOperator, recordOperatorAction } from '../operators/operator-audit.js';
import { releaseHeldTargetAs, setSubscriptionEnabledAs } from './webhooks.operator.js';
import type { DeliveryFigures, WebhookService } from './webhooks.service.js';

type Subscription = NonNullable<Awaited<ReturnType<WebhookService['find']>>>;
type Attempt = Awaited<ReturnType<WebhookService['attempts']>>[number];

const RESPONSE_CHARS = 80;

function parseId(command: string, value: string | undefined): number {
  if (value === undefined) throw new CliError(`${command} needs a subscription id`);
  const id = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(id) || id <= 0 || id > 2_147_483_647)
    throw new CliError(`subscription id must be a positive integer, got "${value}"`);
  return id;
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_DELIVERIES;
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > MAX_DELIVERIES)
    throw new CliError(`--limit must be an integer from 1 to ${MAX_DELIVERIES}, got "${value}"`);
  return limit;
}

const state = (s: Pick<Subscription, 'enabled' | 'disabled_reason'>) =>
  s.enabled ? 'enabled' : `disabled (${s.disabled_reason ?? 'no reason'})`;

/** The first characters of an answer, on one line. */
const excerpt = (text: string | null) =>
  text === null ? '' : text.replace(/\s+/g, ' ').trim().slice(0, RESPONSE_CHARS);

interface ListedSubscription extends Subscription {
  client_key: string;
  deliveries: DeliveryFigures;
}

function listTable(rows: ListedSubscription[]): string {
  return formatTable(
    [
      'ID',
      'CLIENT',
      'URL',
      'TYPES',
      'STATE',
      'PUBLISHED',
      'DELIVERED',
      'FAILED',
      'PENDING',
      'CANCELLED',
    ],
    rows.map((s) => [
      String(s.id),
      s.client_key,
      s.url,
      s.types.join(','),
      state(s),
      String(s.deliveries.events.published),
      String(s.deliveries.events.delivered),
      String(s.deliveries.events.failed),
      String(s.deliveries.events.pending),
      String(s.deliveries.events.cancelled),
    ]),
  );
}

function subscriptionTable(s: Subscription): string {
  return formatTable(
    ['ID', 'CLIENT ID', 'URL', 'TYPES', 'STATE', 'SINCE', 'DESCRIPTION'],
    [
      [
        String(s.id),
        String(s.client_id),
        s.url,
        s.types.join(','),
        state(s),
        s.disabled_at ? s.disabled_at.toISOString() : '',
        s.description ?? '',
      ],
    ],
  );
}

const attemptOf = (a: Attempt) => ({
  id: Number(a.id),
  attempted_at: a.attempted_at.toISOString(),
  webhook_id: a.event.message_id,
  event_type: a.event.event_type,
  outcome: a.outcome,
  status_code: a.status_code,
  duration_ms: a.duration_ms,
  response: a.response,
});

function deliveriesTable(attempts: ReturnType<typeof attemptOf>[]): string {
  return formatTable(
    ['ATTEMPTED AT', 'WEBHOOK-ID', 'EVENT TYPE', 'OUTCOME', 'STATUS', 'MS', 'RESPONSE'],
    attempts.map((a) => [
      a.attempted_at,
      a.webhook_id,
      a.event_type,
      a.outcome,
      a.status_code === null ? '-' : String(a.status_code),
      String(a.duration_ms),
      excerpt(a.response),
    ]),
  );
}

async function run(db: ReadModelClient, service: WebhookService, args: CliArgs): Promise<void> {
  const { command } = args;
  const print = (json: unknown, text: string) => console.log(args.json ? terminalJson(json) : text);
  const existing = async (id: number) => {
    const found = await service.find(null, id);
    if (!found) throw new CliError(`no webhook subscription with id ${id}`);
    return found;
  };

  if (args.pathOnly && command !== 'disable') throw new CliError('--path-only goes with disable');
  switch (command) {
    case 'list': {
      if (args.id !== undefined) throw new CliError('list takes no id (use --client KEY)');
      const subscriptions = await service.list(null, { clientKey: args.client });
      const rows: ListedSubscription[] = await Promise.all(
        subscriptions.map(async ({ client, ...s }) => ({
          ...s,
          client_key: client.client_key,
          deliveries: await service.figures(s.id),
        })),
      );
      const none = args.client ? `(no subscriptions for client ${args.client})` : '(none)';
      print(rows, rows.length > 0 ? listTable(rows) : none);
      return;
    }
    case 'disable':
    case 'enable': {
      const id = parseId(command, args.id);
      if (command === 'enable' && !(await service.find(null, id))) {
        // Deleted by its client after the operator's disable: its target may be subscribed again.
        const released = await releaseHeldTargetAs({ db, webhooks: service }, cliOperator(), id);
        if (!released) throw new CliError(`no webhook subscription with id ${id}`);
        print(
          { id, deleted: true, released },
          `subscription ${id} was deleted by its client; its target may be subscribed to again`,
        );
        return;
      }
      const changed = await setSubscriptionEnabledAs(
        { db, webhooks: service },
        cliOperator(),
        id,
        command === 'enable',
        { pathOnly: args.pathOnly === true },
      );
      const hold =
        command === 'enable'
          ? ''
          : args.pathOnly
            ? `\nits client cannot subscribe to this URL's path until it is enabled`
            : `\nits client cannot subscribe to this host and port until it is enabled`;
      print(changed, subscriptionTable(changed) + hold);
      return;
    }
    case 'deliveries': {
      const id = parseId(command, args.id);
      const take = parseLimit(args.limit);
      await existing(id);
      const [rows, total] = await Promise.all([
        service.attempts(id, { skip: 0, take }),
        service.attemptCount(id),
      ]);
      const attempts = rows.map(attemptOf);
      print(
        { subscription_id: id, total, attempts },
        attempts.length > 0
          ? `${deliveriesTable(attempts)}\n(${attempts.length} of ${total} tries, newest first)`
          : '(no tries yet)',
      );
      return;
    }
    case 'reencrypt-secrets': {
      if (args.id !== undefined) throw new CliError('reencrypt-secrets takes no id');
      const done = await service.reencryptSecrets();
      await recordOperatorAction(db, cliOperator(), 'webhooks.reencrypt-secrets', {
        target: `${done.reencrypted} re-encrypted, ${done.unchanged} unchanged, ${done.unreadable.length} unreadable`,
      });
      print(
        done,
        [
          `${done.reencrypted} subscription(s) re-encrypted under SECRETS_KEY's first key, ${done.unchanged} already were`,
          ...done.unreadable.map((u) => `subscription ${u.id}: ${u.reason}`),
        ].join('\n'),
      );
      if (done.unreadable.length > 0) {
        throw new CliError(
          `${done.unreadable.length} subscription(s) have a secret no key of SECRETS_KEY decrypts: add the key they were encrypted with and run again`,
          1,
        );
      }
      return;
    }
    default:
      throw new CliError(
        command ? `unknown command "${command}" (see npm run webhooks -- --help)` : USAGE,
      );
  }
}

export async function runCommand(args: CliArgs, open: OpenCliServices): Promise<void> {
  // Only re-encrypting needs the key; the other commands never touch a secret.
  const { db, webhooks } = open({ secretsKey: args.command === 'reencrypt-secrets' });
  await run(db, webhooks, args);
}
