// The commands of clients.cli.ts, against the read model, with the services of the CLIs'
// composition root (gateway/src/cli-services.ts).
import type { Config } from '#common/config.js';
import type { CliServices, OpenCliServices } from '../../cli-services.js';
import { parseTtl } from '../../cli/link-options.js';
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
  services: CliServices,
  key: string,
  args: CliArgs,
): Promise<[unknown, string]> {
  const operator = cliOperator();
  if (args.revokeAll) {
    await revokePortalLinks(services.db, operator, key);
    const result = 'every portal link not yet used ended';
    return [{ client_key: key, result }, `${key}: ${result}`];
  }
  const ttlMs = parseTtl(args.ttl);
  const link = await makePortalLink(await services.portalLinks(), operator, key, ttlMs);
  const expiresAt = link.expiresAt.toISOString();
  return [
    { client_key: key, url: link.url, expires_at: expiresAt },
    `${link.url}\nOpens the portal of ${key} once, until ${expiresAt}.`,
  ];
}

export async function runCommand(args: CliArgs, open: OpenCliServices): Promise<void> {
  const services = open();
  const { config } = services;
  const { command, key, arg } = args;
  const print = (json: unknown, text: string) =>
    console.log(args.json ? JSON.stringify(json) : text);
  const requireKey = () => {
    if (!key) throw new CliError(`${command} needs a client key`);
    return key;
  };
  const deps = services.clients;
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
      const clients = await listClientsWithLastUse(services.db);
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
      const [json, text] = await portalLinkCommand(services, requireKey(), args);
      return print(json, text);
    }
    default:
      throw new CliError(
        command ? `unknown command "${command}" (see npm run clients -- --help)` : USAGE,
      );
  }
}
