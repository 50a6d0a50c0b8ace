import type { ReadModelClient } from '../../../../common/databases.js';
import { isScope, type Scope } from '../auth/scopes.js';
import { generateClientKey, generateSecret, hashSecret } from './client-secrets.js';

export interface ClientLimits {
  minute: number;
  hour: number;
  day: number;
}

export interface NewClient {
  name: string;
  scopes: Scope[];
  branchId: number | null;
  limits?: ClientLimits | undefined;
}

export type ApiClientRecord = NonNullable<Awaited<ReturnType<typeof findClientByKey>>>;

export async function createClient(db: ReadModelClient, input: NewClient) {
  const clientSecret = generateSecret();
  const client = await db.apiClient.create({
    data: {
      name: input.name,
      client_key: generateClientKey(),
      secret_hash: await hashSecret(clientSecret),
      scopes: input.scopes,
      branch_id: input.branchId,
      rate_limit_minute: input.limits?.minute ?? null,
      rate_limit_hour: input.limits?.hour ?? null,
      rate_limit_day: input.limits?.day ?? null,
    },
  });
  return { id: client.id, client_key: client.client_key, client_secret: clientSecret };
}

export function findClientByKey(db: ReadModelClient, clientKey: string) {
  return db.apiClient.findUnique({ where: { client_key: clientKey } });
}

export function listClients(db: ReadModelClient) {
  return db.apiClient.findMany({ orderBy: { id: 'asc' }, omit: { secret_hash: true } });
}

export type ListedClient = Awaited<ReturnType<typeof listClients>>[number] & {
  /** When the client last obtained a token: its newest token pair's creation. */
  last_used_at: Date | null;
};

export async function listClientsWithLastUse(db: ReadModelClient): Promise<ListedClient[]> {
  const [clients, newest] = await Promise.all([
    listClients(db),
    db.apiToken.groupBy({ by: ['client_id'], _max: { created_at: true } }),
  ]);
  const lastUse = new Map(newest.map((row) => [row.client_id, row._max.created_at]));
  return clients.map((client) => ({ ...client, last_used_at: lastUse.get(client.id) ?? null }));
}

/** Takes effect at once: every request checks its token against the client. */
export async function setClientActive(db: ReadModelClient, clientKey: string, isActive: boolean) {
  const { count } = await db.apiClient.updateMany({
    where: { client_key: clientKey },
    data: { is_active: isActive },
  });
  return count === 1;
}

export async function rotateClientSecret(db: ReadModelClient, clientKey: string) {
  const clientSecret = generateSecret();
  const { count } = await db.apiClient.updateMany({
    where: { client_key: clientKey },
    data: { secret_hash: await hashSecret(clientSecret) },
  });
  return count === 1 ? clientSecret : null;
}

export async function setClientScopes(db: ReadModelClient, clientKey: string, scopes: Scope[]) {
  const { count } = await db.apiClient.updateMany({
    where: { client_key: clientKey },
    data: { scopes },
  });
  return count === 1;
}

export async function setClientLimits(
  db: ReadModelClient,
  clientKey: string,
  limits: ClientLimits | null,
) {
  const { count } = await db.apiClient.updateMany({
    where: { client_key: clientKey },
    data: {
      rate_limit_minute: limits?.minute ?? null,
      rate_limit_hour: limits?.hour ?? null,
      rate_limit_day: limits?.day ?? null,
    },
  });
  return count === 1;
}

/** The scopes a client holds now, ignoring names that are no longer scopes. */
export function currentScopes(client: { scopes: string[] }): Scope[] {
  return client.scopes.filter(isScope);
}
