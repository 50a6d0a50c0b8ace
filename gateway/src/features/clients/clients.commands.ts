// The commands of clients.cli.ts, against the read model.
import { loadConfigOrExit, type Config } from '../../../../common/config.js';
import { createReadModelClient, type ReadModelClient } from '../../../../common/databases.js';
import type { ClientEpochs } from '../auth/client-epochs.js';
import { createClientSecrets } from './client-secrets.js';
import { isScope, SCOPES, type Scope } from '../../../../api/scopes.js';
import { announcingEpochs } from './announce.js';
import { CliError } from '../../cli/operator-cli.js';
import { USAGE, type CliArgs } from './clients.usage.js';
import {
  createClient,
  listClientsWithLastUse,
  revokeClientTokens,
  rotateClientSecret,
  setClientActive,
  setClientLimits,
  setClientScopes,
  type ClientLimits,
  type ListedClient,
} from './clients.repository.js';
import { formatTable } from './table.js';

function parseScopes(value: string | undefined): Scope[] {
  const names = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0)
    throw new CliError(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  return names as Scope[];
}

function parseLimits(value: string): ClientLimits {
  const match = /^(\d+)\/(\d+)\/(\d+)$/.exec(value);
  const [minute, hour, day] = match ? match.slice(1).map(Number) : [];
  if (!minute || !hour || !day)
    throw new CliError(`limits must be MINUTE/HOUR/DAY positive integers, got "${value}"`);
  return { minute, hour, day };
}

/** The branch a client is bound to, which must exist in the read model; null for all branches. */
async function existingBranch(db: ReadModelClient, value: string | undefined) {
  if (value === undefined) return null;
  const id = Number(value);
  if (!Number.isInteger(id) || id <= 0 || id > 2_147_483_647)
    throw new CliError(`--branch must be a positive integer, got "${value}"`);
  const branch = await db.branch.findUnique({ where: { id }, select: { id: true } });
  if (!branch) {
    throw new CliError(
      `branch ${id} does not exist in the read model (is the worker syncing the dashboard?)`,
      1,
    );
  }
  return id;
}

function listTable(clients: ListedClient[], config: Config): string {
  const defaults = config.rateLimit;
  return formatTable(
    ['KEY', 'NAME', 'SCOPES', 'BRANCH', 'LIMITS (M/H/D)', 'STATE', 'LAST USE'],
    clients.map((c) => [
      c.client_key,
      c.name,
      c.scopes.join(','),
      c.branch_id === null ? 'all' : String(c.branch_id),
      c.rate_limit_minute === null
        ? `default ${defaults.perMinute}/${defaults.perHour}/${defaults.perDay}`
        : `${c.rate_limit_minute}/${c.rate_limit_hour}/${c.rate_limit_day}`,
      c.is_active ? 'active' : 'disabled',
      c.last_used_at ? c.last_used_at.toISOString() : 'never',
    ]),
  );
}

async function run(
  db: ReadModelClient,
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
  const done = (found: boolean, what: string) => {
    if (!found) throw new CliError(`no client with key ${key}`);
    print({ client_key: key, result: what }, `${key}: ${what}`);
  };

  switch (command) {
    case 'create': {
      if (!args.name) throw new CliError('create needs --name');
      const scopes = parseScopes(args.scopes);
      if (scopes.length === 0) throw new CliError('create needs --scopes a,b');
      const limits = args.limits ? parseLimits(args.limits) : undefined;
      const branchId = await existingBranch(db, args.branch);
      const secrets = createClientSecrets(config.secrets.keys);
      const created = await createClient(db, secrets, {
        name: args.name,
        scopes,
        branchId,
        limits,
      });
      print(
        { ...created, name: args.name, scopes, branch_id: branchId },
        `client created (id ${created.id})\nclient_key:    ${created.client_key}\nclient_secret: ${created.client_secret}\n` +
          'The secret is shown only this once.',
      );
      return;
    }
    case 'list': {
      const clients = await listClientsWithLastUse(db);
      print(clients, clients.length > 0 ? listTable(clients, config) : '(no clients)');
      return;
    }
    case 'disable':
      return done(await setClientActive(db, epochs, requireKey(), false), 'disabled');
    case 'enable':
      return done(await setClientActive(db, epochs, requireKey(), true), 'enabled');
    case 'rotate-secret': {
      const secrets = createClientSecrets(config.secrets.keys);
      const secret = await rotateClientSecret(db, epochs, secrets, requireKey());
      if (!secret) throw new CliError(`no client with key ${key}`);
      print(
        { client_key: key, client_secret: secret },
        `client_secret: ${secret}\nThe secret is shown only this once.`,
      );
      return;
    }
    case 'revoke-tokens':
      return done(await revokeClientTokens(db, epochs, requireKey()), 'every token revoked');
    case 'set-scopes': {
      const scopes = parseScopes(arg);
      if (scopes.length === 0) throw new CliError('set-scopes needs KEY a,b');
      return done(
        await setClientScopes(db, epochs, requireKey(), scopes),
        `scopes set to ${scopes.join(',')}`,
      );
    }
    case 'set-limits': {
      if (!arg) throw new CliError('set-limits needs KEY M/H/D (or "default")');
      const limits = arg === 'default' ? null : parseLimits(arg);
      return done(await setClientLimits(db, epochs, requireKey(), limits), `limits set to ${arg}`);
    }
    default:
      throw new CliError(
        command ? `unknown command "${command}" (see npm run clients -- --help)` : USAGE,
      );
  }
}

export async function runCommand(args: CliArgs): Promise<void> {
  // A new secret is stored keyed under SECRETS_KEY: in production, none is made without it.
  const config = loadConfigOrExit({
    needsSecretsKey: args.command === 'create' || args.command === 'rotate-secret',
  });
  const db = createReadModelClient(config.db.url, { poolSize: 2 });
  const epochs = announcingEpochs(config);
  try {
    await run(db, epochs, config, args);
  } finally {
    epochs.close();
    await db.$disconnect();
  }
}
