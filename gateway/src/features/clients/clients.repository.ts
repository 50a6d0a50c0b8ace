import pg from 'pg';
import { readModelPool, type ReadModelClient, type ReadModelPrisma } from '#common/databases.js';
import { Prisma, type ApiClient } from '#prisma/generated/read-model/client.js';
import { pgRows, raw, sql, type Sql } from '#read-model/sql.js';
import type { ClientEpochs } from '../../trust/client-epochs.js';
import { DATA_CLASSES, type DataClass } from '#api/data-classes.js';
import type { Scope } from '#api/scopes.js';
import type { Club } from '#api/sandbox.js';
import { disableEndedSubscriptions } from '#api/webhooks/credentials.js';
import {
  generateClientKey,
  generateSecret,
  type ClientSecrets,
} from '../../trust/client-secrets.js';

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
  /**
   * The classes of members' personal data it holds, `basic` among them; every class when left
   * out (tools and tests that make clients directly; the operator's commands always name them).
   */
  dataClasses?: readonly DataClass[] | undefined;
  /** Which club its tokens read (api/sandbox.ts); live when left out. */
  club?: Club | undefined;
}

export type ApiClientRecord = ApiClient;

/** A read-model client inside $transaction. */
type Transaction = ReadModelPrisma.TransactionClient;

/** Why every token of a client ended, as api_tokens.revoke_reason records it. */
export type EndReason = 'revoked' | 'secret-rotated' | 'operator-revoked' | 'disabled';

export async function createClient(db: ReadModelClient, secrets: ClientSecrets, input: NewClient) {
  const clientSecret = generateSecret();
  const client = await db.apiClient.create({
    data: {
      name: input.name,
      client_key: generateClientKey(input.club),
      secret_hash: secrets.hash(clientSecret),
      scopes: input.scopes,
      branch_id: input.branchId,
      data_classes: [...(input.dataClasses ?? DATA_CLASSES)],
      data_classes_review: false,
      rate_limit_minute: input.limits?.minute ?? null,
      rate_limit_hour: input.limits?.hour ?? null,
      rate_limit_day: input.limits?.day ?? null,
    },
  });
  return { id: client.id, client_key: client.client_key, client_secret: clientSecret };
}

/** Every column of api_clients, as the ORM's model names them. */
const CLIENT_COLUMNS = raw(
  Object.values(Prisma.ApiClientScalarFieldEnum)
    .map((column) => pg.escapeIdentifier(column))
    .join(', '),
);

/** The client `condition` names: one statement on the pool (findClientByKey says why). */
async function findClient(db: ReadModelClient, condition: Sql): Promise<ApiClientRecord | null> {
  const [row] = await pgRows<ApiClientRecord>(
    readModelPool(db),
    sql`SELECT ${CLIENT_COLUMNS} FROM api_clients WHERE ${condition}`,
  );
  return row ?? null;
}

/**
 * The client a key names. Every token request reads it: one statement on the pool, whose rows pg
 * types as the ORM does (integers, text arrays, booleans, timestamps as Date), without the ORM's
 * cost per query (decision 0003).
 */
export const findClientByKey = (db: ReadModelClient, clientKey: string) =>
  findClient(db, sql`client_key = ${clientKey}`);

/** The client of an id (a portal session's or link's), as it is now. */
export const findClientById = (db: ReadModelClient, id: number) => findClient(db, sql`id = ${id}`);

/** The keys of the clients `ids` name, by id (a usage report's rows name clients by id). */
export async function clientKeysOf(db: ReadModelClient, ids: readonly number[]) {
  const clients = await db.apiClient.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, client_key: true },
  });
  return new Map(clients.map((c) => [c.id, c.client_key]));
}

/**
 * Stores a secret checked against an older stored form in the current one; a rotation that
 * replaced the old form meanwhile is kept.
 */
export async function restoreSecretHash(
  db: ReadModelClient,
  clientId: number,
  checked: string,
  current: string,
): Promise<void> {
  await db.apiClient.updateMany({
    where: { id: clientId, secret_hash: checked },
    data: { secret_hash: current },
  });
}

export function listClients(db: ReadModelClient) {
  return db.apiClient.findMany({
    orderBy: { id: 'asc' },
    omit: { secret_hash: true, previous_secret_hash: true },
  });
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

/**
 * Changes what a client's tokens may do; takes effect at once on every gateway instance: the
 * client's epoch moves after the row does, so no instance keeps serving a cached token of it.
 */
async function updateClient(
  db: ReadModelClient,
  epochs: ClientEpochs,
  clientKey: string,
  data: ReadModelPrisma.ApiClientUpdateInput,
): Promise<boolean> {
  const client = await db.apiClient.findUnique({
    where: { client_key: clientKey },
    select: { id: true },
  });
  if (!client) return false;
  await db.apiClient.update({ where: { id: client.id }, data });
  await epochs.bump(client.id);
  return true;
}

/**
 * The client's webhook subscriptions whose credentials a change in `tx` ended are disabled
 * `credentials-ended` with it (api/webhooks/credentials.ts): a leaked secret or token leaves no
 * subscription delivering to whoever held it.
 */
async function disableSubscriptionsOfEndedCredentials(tx: Transaction, clientId: number) {
  await tx.$queryRaw(disableEndedSubscriptions(clientId, 'gateway'));
}

/**
 * Ends every token the client holds, inside the caller's transaction: the generation moves, so a
 * pair a refresh or token request in flight saves afterwards is born dead too (its chain carries
 * the generation it began under), and the rows are marked for the retention purge; the webhook
 * subscriptions those tokens made are disabled. The caller moves the client's epoch after the
 * commit (decision 0003).
 */
export async function endClientTokens(tx: Transaction, clientId: number, reason: EndReason) {
  await tx.apiClient.update({
    where: { id: clientId },
    data: { token_generation: { increment: 1 } },
  });
  await tx.apiToken.updateMany({
    where: { client_id: clientId, revoked_at: null },
    data: { revoked_at: new Date(), revoke_reason: reason },
  });
  await disableSubscriptionsOfEndedCredentials(tx, clientId);
}

/** Applies an operator's change that ends the client's tokens; false when the key is unknown. */
async function changeEndingTokens(
  db: ReadModelClient,
  epochs: ClientEpochs,
  clientKey: string,
  reason: EndReason,
  data: ReadModelPrisma.ApiClientUpdateInput = {},
): Promise<boolean> {
  const ended = await db.$transaction(async (tx) => {
    const client = await tx.apiClient.findUnique({
      where: { client_key: clientKey },
      select: { id: true },
    });
    if (!client) return null;
    await tx.apiClient.update({ where: { id: client.id }, data });
    await endClientTokens(tx, client.id, reason);
    return client.id;
  });
  if (ended === null) return false;
  await epochs.bump(ended);
  return true;
}

/** Disabling ends every token; enabling brings none back (the generation has moved on). */
export function setClientActive(
  db: ReadModelClient,
  epochs: ClientEpochs,
  clientKey: string,
  isActive: boolean,
) {
  return isActive
    ? updateClient(db, epochs, clientKey, { is_active: true })
    : changeEndingTokens(db, epochs, clientKey, 'disabled', { is_active: false });
}

/**
 * A new secret; null for an unknown key. Without an overlap, every token obtained with the old
 * one ends at once. With one, the old secret keeps issuing tokens, and its tokens stay valid,
 * until `overlapMs` from now (trust/secret-overlap.ts); a secret replaced by an earlier rotation,
 * still in its overlap, ends now with its tokens.
 */
export async function rotateClientSecret(
  db: ReadModelClient,
  epochs: ClientEpochs,
  secrets: ClientSecrets,
  clientKey: string,
  options: { overlapMs?: number | undefined } = {},
): Promise<{ clientSecret: string; previousSecretUntil: Date | null } | null> {
  const clientSecret = generateSecret();
  const secretHash = secrets.hash(clientSecret);
  const { overlapMs } = options;
  if (overlapMs === undefined) {
    const found = await changeEndingTokens(db, epochs, clientKey, 'secret-rotated', {
      secret_hash: secretHash,
      secret_version: { increment: 1 },
      previous_secret_hash: null,
      previous_secret_until: null,
    });
    return found ? { clientSecret, previousSecretUntil: null } : null;
  }
  const previousSecretUntil = new Date(Date.now() + overlapMs);
  const rotated = await db.$transaction(async (tx) => {
    // The row locked, so two rotations at once each replace the secret the other left.
    const [client] = await tx.$queryRaw<{ id: number; secret_hash: string }[]>`
      SELECT id, secret_hash FROM api_clients WHERE client_key = ${clientKey} FOR NO KEY UPDATE`;
    if (!client) return null;
    await tx.apiClient.update({
      where: { id: client.id },
      data: {
        secret_hash: secretHash,
        secret_version: { increment: 1 },
        previous_secret_hash: client.secret_hash,
        previous_secret_until: previousSecretUntil,
      },
    });
    // A secret two rotations old ends now, with the subscriptions it made.
    await disableSubscriptionsOfEndedCredentials(tx, client.id);
    return client.id;
  });
  if (rotated === null) return null;
  await epochs.bump(rotated);
  return { clientSecret, previousSecretUntil };
}

/**
 * Ends the overlap of a rotation now: the previous secret is refused and its tokens end, on every
 * gateway (the epoch moves). False for an unknown key; a client without a previous secret is
 * left as it is.
 */
export async function endPreviousClientSecret(
  db: ReadModelClient,
  epochs: ClientEpochs,
  clientKey: string,
): Promise<boolean> {
  const ended = await db.$transaction(async (tx) => {
    const client = await tx.apiClient.findUnique({
      where: { client_key: clientKey },
      select: { id: true, secret_version: true },
    });
    if (!client) return null;
    await tx.apiClient.update({
      where: { id: client.id },
      data: { previous_secret_hash: null, previous_secret_until: null },
    });
    // Marked for the retention purge; refused already by their secret_version.
    await tx.apiToken.updateMany({
      where: {
        client_id: client.id,
        secret_version: { lt: client.secret_version },
        revoked_at: null,
      },
      data: { revoked_at: new Date(), revoke_reason: 'secret-rotated' },
    });
    await disableSubscriptionsOfEndedCredentials(tx, client.id);
    return client.id;
  });
  if (ended === null) return false;
  await epochs.bump(ended);
  return true;
}

/** The operator's revoke-tokens: every token of the client ends; the secret stays. */
export function revokeClientTokens(db: ReadModelClient, epochs: ClientEpochs, clientKey: string) {
  return changeEndingTokens(db, epochs, clientKey, 'operator-revoked');
}

export function setClientScopes(
  db: ReadModelClient,
  epochs: ClientEpochs,
  clientKey: string,
  scopes: Scope[],
) {
  return updateClient(db, epochs, clientKey, { scopes });
}

/** The classes of personal data the client holds; saved by an operator, so reviewed. */
export function setClientDataClasses(
  db: ReadModelClient,
  epochs: ClientEpochs,
  clientKey: string,
  dataClasses: DataClass[],
) {
  return updateClient(db, epochs, clientKey, {
    data_classes: dataClasses,
    data_classes_review: false,
  });
}

export function setClientLimits(
  db: ReadModelClient,
  epochs: ClientEpochs,
  clientKey: string,
  limits: ClientLimits | null,
) {
  return updateClient(db, epochs, clientKey, {
    rate_limit_minute: limits?.minute ?? null,
    rate_limit_hour: limits?.hour ?? null,
    rate_limit_day: limits?.day ?? null,
  });
}

/** The branch every request of the client is bound to; null for every branch. */
export function setClientBranch(
  db: ReadModelClient,
  epochs: ClientEpochs,
  clientKey: string,
  branchId: number | null,
) {
  return updateClient(db, epochs, clientKey, { branch_id: branchId });
}
