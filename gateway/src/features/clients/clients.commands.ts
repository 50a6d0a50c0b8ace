// The commands of clients.cli.ts, against the read model.
import { loadConfigOrExit, type Config } from '#common/config.js';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import type { ClientEpochs } from '../../trust/client-epochs.js';
import { announcingEpochs } from './announce.js';
import { createClientSecrets } from '../../trust/client-secrets.js';
import { parseTtl, withRedis } from '../../cli/link-options.js';
import { CliError } from '../../cli/operator-cli.js';
import { makePortalLink, revokePortalLinks } from '../portal/portal-links.js';
import { cliOperator, type Operator } from '../operators/operator-audit.js';
import { USAGE, type CliArgs } from './clients.usage.js';
import { listClientsWithLastUse, type ListedClient } from './clients.repository.js';
import {
  applyClientAction,
  createClientAs,
  endPreviousSecretAs,
  grantDataClassesAs,
  isClientAction,
  MAX_SECRET_OVERLAP_MS,
  rotateSecretAs,
  setBranchAs,
  setLimitsAs,
  setScopesAs,
  type ClientDeps,
} from './clients.service.js';
import { parseDuration } from '../../cli/durations.js';
import { formatTable } from './table.js';

function listTable(clients: ListedClient[], config: Config): string {
  const defaults = config.rateLimit;
  return formatTable(
    ['KEY', 'NAME', 'SCOPES', 'DATA', 'BRANCH', 'LIMITS (M/H/D)', 'STATE', 'LAST USE'],
    clients.map((c) => [
      c.client_key,
      c.name,
      c.scopes.join(','),
      c.data_classes_review ? 'all classes: review' : c.data_classes.join(','),
      c.branch_id === null ? 'all' : String(c.branch_id),
      c.rate_limit_minute === null
        ? `default ${defaults.perMinute}/${defaults.perHour}/${defaults.perDay}`
        : `${c.rate_limit_minute}/${c.rate_limit_hour}/${c.rate_limit_day}`,
      c.is_active ? 'active' : 'disabled',
      c.last_used_at ? c.last_used_at.toISOString() : 'never',
    ]),
  );
}

/**
 * The line that sends the operator to the client's subscriptions disabled because their
 * credentials ended, to look at with the partner (docs/operations/incidents.md,
 * "A client secret leaked").
 */
const endedLine = (key: string | undefined, ids: readonly number[] | undefined) =>
  ids && ids.length > 0
    ? `\nwebhook subscriptions disabled (credentials-ended): ${ids.join(', ')}; ` +
      `see npm run webhooks -- list --client ${key}`
    : '';

/** What the CLI prints once an action is done. */
const ACTION_RESULTS = {
  disable: 'disabled',
  enable: 'enabled',
  'rotate-secret': 'secret rotated',
  'revoke-tokens': 'every token revoked',
} as const;

/**
 * The commands that end credentials (rotate-secret, end-previous-secret, disable, revoke-tokens)
 * and enable, each answered with the subscriptions left disabled; null for any other command.
 */
async function endingCommand(
  deps: ClientDeps,
  operator: Operator,
  args: CliArgs,
  requireKey: () => string,
): Promise<{ json: unknown; text: string } | null> {
  const { command } = args;
  const ending = command === 'rotate-secret' || command === 'end-previous-secret';
  if (!ending && !isClientAction(command)) return null;
  const key = requireKey();
  if (command === 'rotate-secret') {
    const overlapMs =
      args.overlap === undefined
        ? undefined
        : parseDuration(args.overlap, '--overlap', MAX_SECRET_OVERLAP_MS);
    const rotated = await rotateSecretAs(deps, operator, key, { overlapMs });
    const until = rotated.previous_secret_until?.toISOString() ?? null;
    return {
      json: { client_key: key, ...rotated, previous_secret_until: until },
      text:
        `client_secret: ${rotated.client_secret}\nThe secret is shown only this once.` +
        (until
          ? `\nThe previous secret works until ${until}; the webhook subscriptions it made are disabled then.`
          : '') +
        endedLine(key, rotated.subscriptions_disabled),
    };
  }
  if (command === 'end-previous-secret') {
    const disabled = await endPreviousSecretAs(deps, operator, key);
    return {
      json: { client_key: key, result: 'previous secret ended', subscriptions_disabled: disabled },
      text: `${key}: previous secret ended${endedLine(key, disabled)}`,
    };
  }
  if (!isClientAction(command)) return null;
  const answer = await applyClientAction(deps, operator, command, key);
  const ended = endedLine(key, answer.subscriptions_disabled);
  return {
    json: { client_key: key, result: ACTION_RESULTS[command], ...answer },
    text:
      answer.client_secret === undefined
        ? `${key}: ${ACTION_RESULTS[command]}${ended}`
        : `client_secret: ${answer.client_secret}\nThe secret is shown only this once.${ended}`,
  };
}

/** `portal-link KEY [--ttl]` or `--revoke-all`: what it prints, as JSON and as text. */
async function portalLinkCommand(
  db: ReadModelClient,
  config: Config,
  key: string,
  args: CliArgs,
): Promise<[unknown, string]> {
  const operator = cliOperator();
  if (args.revokeAll) {
    await revokePortalLinks(db, operator, key);
    const result = 'every portal link not yet used ended';
    return [{ client_key: key, result }, `${key}: ${result}`];
  }
  const ttlMs = parseTtl(args.ttl);
  const link = await withRedis(config.redis, (redis) =>
    makePortalLink(
      {
        db,
        redis,
        prefix: config.redis.prefix,
        secretsKeys: config.secrets.keys,
        publicOrigin: config.console.publicOrigin,
      },
      operator,
      key,
      ttlMs,
    ),
  );
  const expiresAt = link.expiresAt.toISOString();
  return [
    { client_key: key, url: link.url, expires_at: expiresAt },
    `${link.url}\nOpens the portal of ${key} once, until ${expiresAt}.`,
  ];
}

async function run(
  { db, sandbox }: { db: ReadModelClient; sandbox: ReadModelClient | undefined },
  epochs: ClientEpochs,
  config: Config,
  args: CliArgs,
): Promise<void> {
  const { command, key, arg } = args;
  const print = (json: unknown, text: string) =>
    console.log(args.json ? JSON.stringify(json) : text);
  const requireKey = () => {
    if (!key) throw new CliError(`${command} needs a client key`);
    return key;
  };
  const deps = { db, sandbox, epochs, secrets: createClientSecrets(config.secrets.keys) };
  const operator = cliOperator();
  const done = (what: string) => print({ client_key: key, result: what }, `${key}: ${what}`);

  const ending = await endingCommand(deps, operator, args, requireKey);
  if (ending) return print(ending.json, ending.text);
  switch (command) {
    case 'create': {
      const created = await createClientAs(deps, operator, args);
      print(
        created,
        `${created.sandbox ? 'sandbox ' : ''}client created (id ${created.id})\nclient_key:    ${created.client_key}\nclient_secret: ${created.client_secret}\n` +
          'The secret is shown only this once.',
      );
      return;
    }
    case 'list': {
      const clients = await listClientsWithLastUse(db);
      print(clients, clients.length > 0 ? listTable(clients, config) : '(no clients)');
      return;
    }
    case 'set-scopes': {
      const scopes = await setScopesAs(deps, operator, requireKey(), arg);
      return done(`scopes set to ${scopes.join(',')}`);
    }
    case 'grant': {
      const { before, after } = await grantDataClassesAs(deps, operator, requireKey(), args.data);
      print(
        { client_key: key, data_classes: after, before },
        `${key}: data classes ${before.join(',')} -> ${after.join(',')}`,
      );
      return;
    }
    case 'set-limits':
      await setLimitsAs(deps, operator, requireKey(), arg);
      return done(`limits set to ${arg}`);
    case 'set-branch': {
      const branchId = await setBranchAs(deps, operator, requireKey(), arg);
      return done(`branch set to ${branchId === null ? 'all' : branchId}`);
    }
    case 'portal-link': {
      const [json, text] = await portalLinkCommand(db, config, requireKey(), args);
      return print(json, text);
    }
    default:
      throw new CliError(
        command ? `unknown command "${command}" (see npm run clients -- --help)` : USAGE,
      );
  }
}

export async function runCommand(args: CliArgs): Promise<void> {
  const config = loadConfigOrExit();
  const db = createReadModelClient(config.db.url, { poolSize: 2 });
  // Opened on its first query only: a sandbox client's branch is one of the generated club's.
  const sandbox = config.sandbox.enabled
    ? createReadModelClient(config.sandbox.dbUrl, { poolSize: 1 })
    : undefined;
  const epochs = announcingEpochs(config);
  try {
    await run({ db, sandbox }, epochs, config, args);
  } finally {
    epochs.close();
    await Promise.all([db.$disconnect(), sandbox?.$disconnect()]);
  }
}
