// `npm run clients -- <command>`: API client management for operators.
//   create --name NAME --scopes a,b [--branch ID] [--limits M/H/D] [--json]
//   list [--json] | disable KEY | enable KEY | rotate-secret KEY [--json]
//   set-scopes KEY a,b | set-limits KEY M/H/D|default
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadConfigOrExit, type Config } from '../../../../common/config.js';
import { createReadModelClient, type ReadModelClient } from '../../../../common/databases.js';
import { createRedis } from '../../../../common/redis.js';
import { createClientEpochs, type ClientEpochs } from '../auth/client-epochs.js';
import { isScope, SCOPES, type Scope } from '../auth/scopes.js';
import {
  createClient,
  listClients,
  rotateClientSecret,
  setClientActive,
  setClientLimits,
  setClientScopes,
  type ClientLimits,
} from './clients.repository.js';

class UsageError extends Error {}

function parseScopes(value: string | undefined): Scope[] {
  const names = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0)
    throw new UsageError(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  return names as Scope[];
}

function parseLimits(value: string): ClientLimits {
  const match = /^(\d+)\/(\d+)\/(\d+)$/.exec(value);
  const [minute, hour, day] = match ? match.slice(1).map(Number) : [];
  if (!minute || !hour || !day)
    throw new UsageError(`limits must be MINUTE/HOUR/DAY positive integers, got "${value}"`);
  return { minute, hour, day };
}

function parseBranch(value: string | undefined): number | null {
  if (value === undefined) return null;
  const id = Number(value);
  if (!Number.isInteger(id) || id <= 0)
    throw new UsageError(`--branch must be a positive integer, got "${value}"`);
  return id;
}

async function run(db: ReadModelClient, epochs: ClientEpochs, argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      branch: { type: 'string' },
      limits: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [command, key, arg] = positionals;
  const print = (json: unknown, text: string) =>
    console.log(values.json ? JSON.stringify(json) : text);
  const requireKey = () => {
    if (!key) throw new UsageError(`${command} needs a client key`);
    return key;
  };
  const done = (found: boolean, what: string) => {
    if (!found) throw new UsageError(`no client with key ${key}`);
    print({ client_key: key, result: what }, `${key}: ${what}`);
  };

  switch (command ?? '') {
    case 'create': {
      if (!values.name) throw new UsageError('create needs --name');
      const scopes = parseScopes(values.scopes);
      if (scopes.length === 0) throw new UsageError('create needs --scopes a,b');
      const created = await createClient(db, {
        name: values.name,
        scopes,
        branchId: parseBranch(values.branch),
        limits: values.limits ? parseLimits(values.limits) : undefined,
      });
      print(
        { ...created, name: values.name, scopes, branch_id: parseBranch(values.branch) },
        `client created (id ${created.id})\nclient_key:    ${created.client_key}\nclient_secret: ${created.client_secret}\n` +
          'The secret is shown only this once.',
      );
      return;
    }
    case 'list': {
      const clients = await listClients(db);
      print(
        clients,
        clients
          .map((c) =>
            [
              c.id,
              c.client_key,
              c.is_active ? 'active' : 'disabled',
              c.name,
              `branch=${c.branch_id ?? 'all'}`,
              c.scopes.join(','),
            ].join('\t'),
          )
          .join('\n') || '(no clients)',
      );
      return;
    }
    case 'disable':
      return done(await setClientActive(db, epochs, requireKey(), false), 'disabled');
    case 'enable':
      return done(await setClientActive(db, epochs, requireKey(), true), 'enabled');
    case 'rotate-secret': {
      const secret = await rotateClientSecret(db, requireKey());
      if (!secret) throw new UsageError(`no client with key ${key}`);
      print(
        { client_key: key, client_secret: secret },
        `client_secret: ${secret}\nThe secret is shown only this once.`,
      );
      return;
    }
    case 'set-scopes': {
      const scopes = parseScopes(arg);
      if (scopes.length === 0) throw new UsageError('set-scopes needs KEY a,b');
      return done(
        await setClientScopes(db, epochs, requireKey(), scopes),
        `scopes set to ${scopes.join(',')}`,
      );
    }
    case 'set-limits': {
      if (!arg) throw new UsageError('set-limits needs KEY M/H/D (or "default")');
      const limits = arg === 'default' ? null : parseLimits(arg);
      return done(await setClientLimits(db, epochs, requireKey(), limits), `limits set to ${arg}`);
    }
    default:
      throw new UsageError(
        'usage: clients create --name NAME --scopes a,b [--branch ID] [--limits M/H/D] [--json]\n' +
          '       clients list | disable KEY | enable KEY | rotate-secret KEY | set-scopes KEY a,b | set-limits KEY M/H/D',
      );
  }
}

/**
 * The running gateways' token caches are invalidated through Redis (decision 0005). Without it
 * the change is made in PostgreSQL all the same; the operator is told how long caches may lag.
 */
function announcingEpochs(config: Config): ClientEpochs & { close(): void } {
  const redis = createRedis(config.redis.url);
  redis.on('error', () => undefined);
  const ready = once(redis, 'ready').then(
    () => true,
    () => false,
  );
  const epochs = createClientEpochs(redis, config.redis.prefix);
  return {
    ...epochs,
    async bump(clientId) {
      const reached = await Promise.race([ready, sleep(3000).then(() => false)]);
      await (reached ? epochs.bump(clientId) : Promise.reject(new Error('not connected'))).catch(
        (error: unknown) =>
          console.error(
            `warning: Redis unreachable (${(error as Error).message}); running gateways may ` +
              `serve this client's cached tokens for up to ${config.tokens.cacheSeconds} s`,
          ),
      );
    },
    close: () => redis.disconnect(),
  };
}

const config = loadConfigOrExit();
const db = createReadModelClient(config.db.url, { poolSize: 2 });
const epochs = announcingEpochs(config);
try {
  await run(db, epochs, process.argv.slice(2));
} catch (error) {
  const message =
    error instanceof UsageError || error instanceof TypeError
      ? error.message
      : `failed: ${(error as Error).message}`;
  console.error(message);
  process.exitCode = error instanceof UsageError || error instanceof TypeError ? 2 : 1;
} finally {
  epochs.close();
  await db.$disconnect();
}
