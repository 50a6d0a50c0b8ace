// The token engine's storage: @node-oauth/oauth2-server drives the grants, this model keeps
// clients and token pairs in PostgreSQL, as SHA-256 digests only. Every revocation replaces the
// client's epoch in Redis before it returns, so every gateway instance drops its cached copy of
// the client's tokens on its next request (client-epochs.ts). A pair carries the client's token
// generation from the moment its chain's client authenticated, and the refresh chain's start:
// a pair saved after its client's tokens were all ended is born dead (decision 0003).
//
// The file reads top down: the policies (who may obtain tokens, which scopes, when a refresh
// token is refused, how long a chain's refresh lives), then the steps the methods share (a
// secret's version, ending a chain on reuse, a refresh token's form), then one function per
// model method; createOAuthModel only binds them to their dependencies.
import { randomUUID } from 'node:crypto';
import type OAuth2Server from '@node-oauth/oauth2-server';
import { readModelPool, type ReadModelClient, type ReadModelPrisma } from '#common/databases.js';
import type { ApiToken } from '#prisma/generated/read-model/client.js';
import { pgRows, sql } from '#read-model/sql.js';
import type { Logger } from '#common/logger.js';
import { insufficientScope } from '../../http/errors.js';
import { sha256, type ClientSecrets } from '../../trust/client-secrets.js';
import { currentScopes } from '#api/scopes.js';
import {
  endClientTokens,
  findClientByKey,
  restoreSecretHash,
  type ApiClientRecord,
} from '../clients/clients.repository.js';
import type { ClientEpochs } from '../../trust/client-epochs.js';
import type { EarlierTokens } from '../../trust/earlier-tokens.js';
import type { IssueLimit } from './issue-limit.js';
import { previousSecretLives, secretEndsAt } from '../../trust/secret-overlap.js';
import type { TokenChecks } from '../../trust/token-checks.js';

export interface OAuthClient extends OAuth2Server.Client {
  record: ApiClientRecord;
  /** The secret_version of the secret the client authenticated with (decision 0003). */
  secretVersion: number;
}

/** The "user" of a client-credentials token is the client itself, plus the token chain. */
export interface OAuthUser extends OAuth2Server.User {
  clientId: number;
  chainId: string;
  /** Whether the pair begins its chain (a token request) rather than following it (a refresh). */
  beginsChain: boolean;
  chainStartedAt: Date | null;
  /** The client's token generation when the chain began (token_generation). */
  generation: number;
  /** The secret_version of the secret that began the chain. */
  secretVersion: number;
}

interface ModelDeps {
  db: ReadModelClient;
  epochs: ClientEpochs;
  logger: Logger;
  issueLimit: IssueLimit;
  secrets: ClientSecrets;
  checks: TokenChecks;
  earlier: EarlierTokens;
  /** REFRESH_CHAIN_MAX_DAYS in ms. */
  chainMaxMs: number;
}

/** A stored pair found by its refresh token, with its client. */
type RefreshRow = ReadModelPrisma.ApiTokenGetPayload<{ include: { client: true } }>;

/** A pair as saved: its tokens as digests only. */
type PairRow = ReadModelPrisma.ApiTokenUncheckedCreateInput;
/** The columns savePair gives a pair: the model's, but those the database or later acts set. */
type FirstPairRow = Omit<
  ApiToken,
  'id' | 'rotated_at' | 'revoked_at' | 'revoke_reason' | 'created_at'
>;

const GRANTS = ['client_credentials', 'refresh_token'];

function toOAuthClient(
  record: ApiClientRecord,
  secretVersion = record.secret_version,
): OAuthClient {
  return { id: String(record.id), grants: GRANTS, record, secretVersion };
}

/**
 * A disabled client, or one holding no scope, may not obtain tokens
 * (docs/decisions/0003-tokens.md).
 */
function assertMayObtainTokens(record: ApiClientRecord): void {
  if (!record.is_active) throw insufficientScope('API istemcisi devre dışı.');
  if (currentScopes(record).length === 0)
    throw insufficientScope('API istemcisinin hiçbir yetkisi yok.');
}

/** The scopes a token gets: all the client holds, or those requested if it holds them all. */
function grantedScopes(client: OAuthClient, requested?: string[]) {
  const held = currentScopes(client.record);
  if (!requested || requested.length === 0) return Promise.resolve(held);
  const allowed = requested.every((scope) => (held as string[]).includes(scope));
  return Promise.resolve(allowed ? requested : false);
}

/**
 * Whether a refresh token whose pair is stored and not rotated is refused: its pair revoked, its
 * client's tokens ended since, its secret replaced, or its refresh or its chain over.
 */
function refreshRefused(row: RefreshRow, chainMaxMs: number): boolean {
  if (row.revoked_at || row.generation !== row.client.token_generation) return true;
  // A chain begun with a secret replaced with an overlap ends with the overlap.
  if (secretEndsAt(row.secret_version, row.client) <= Date.now()) return true;
  // Expired tokens are refused here, before findRefreshablePair counts, not by the library after
  // the count: whoever holds an expired one cannot use up its client's issuance.
  if (row.refresh_expires_at.getTime() <= Date.now()) return true;
  return row.chain_started_at.getTime() + chainMaxMs <= Date.now();
}

/** When a new pair's refresh token ends: undefined when the pair has none. */
function refreshEndOf(
  token: OAuth2Server.Token,
  chainStartedAt: Date,
  chainMaxMs: number,
): Date | undefined {
  // No refresh of the chain outlives its last day, whatever the refresh lifetime.
  const chainEnd = new Date(chainStartedAt.getTime() + chainMaxMs);
  return token.refreshTokenExpiresAt && min(token.refreshTokenExpiresAt, chainEnd);
}

/**
 * The secret_version of the client's secret `secret` is: its current one (an older stored form
 * is replaced), or the previous one within its overlap; null when it is neither.
 */
async function versionOfSecret(
  deps: ModelDeps,
  record: ApiClientRecord | null,
  secret: string,
): Promise<number | null> {
  const stored = record?.secret_hash ?? null;
  const check = await deps.secrets.verify(secret, stored);
  if (check.keyMissing) {
    deps.logger.warn(
      { clientId: record?.id },
      "a client's secret is stored under a key SECRETS_KEY no longer holds: put it back",
    );
  }
  if (check.valid && check.restore && record && stored) {
    await restoreSecretHash(deps.db, record.id, stored, check.restore);
  }
  if (check.valid && record) return record.secret_version;
  if (!record?.previous_secret_hash || !previousSecretLives(record)) return null;
  const previous = await deps.secrets.verify(secret, record.previous_secret_hash);
  return previous.valid ? record.secret_version - 1 : null;
}

/**
 * After a revocation is committed. A Redis that cannot be reached is not fatal: the revocation
 * stands in PostgreSQL, and instances that cannot reach Redis either check PostgreSQL on every
 * request and empty their caches when the connection drops (decision 0005).
 */
async function invalidate(deps: ModelDeps, clientId: number): Promise<void> {
  await deps.epochs.bump(clientId).catch((error: unknown) => {
    deps.logger.warn({ err: error, clientId }, 'could not announce a revocation in Redis');
  });
}

/** Takes saveFollowingPair's chain lock, so no pair of the chain escapes revocation. */
async function revokeChainAfterReuse(
  deps: ModelDeps,
  chainId: string,
  clientId: number,
): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${chainId}))`;
    await tx.apiToken.updateMany({
      where: { chain_id: chainId, OR: [{ revoked_at: null }, { revoke_reason: 'rotated' }] },
      data: { revoked_at: new Date(), revoke_reason: 'reuse' },
    });
  });
  await invalidate(deps, clientId);
}

/**
 * A refresh token of the chain that is no longer current was presented: the chain's pairs end,
 * if it still has any in use. The current pair of a chain is never purged while it can be
 * used (TOKEN_RETENTION_DAYS counts from its end), so reuse is detected for the chain's life.
 */
async function revokeLiveChain(deps: ModelDeps, chainId: string): Promise<void> {
  const live = await deps.db.apiToken.findFirst({
    where: { chain_id: chainId, revoked_at: null, refresh_expires_at: { gt: new Date() } },
    select: { client_id: true },
  });
  if (live) await revokeChainAfterReuse(deps, chainId, live.client_id);
}

/** The form of a refresh token that may be ours; null: refused without a lookup. */
async function formOf(deps: ModelDeps, refreshToken: string) {
  const form = deps.checks.refreshForm(refreshToken);
  if (form?.form === 'earlier' && !(await deps.earlier.refreshMayLive())) return null;
  return form;
}

/**
 * getClient: the client a key names, authenticated by its secret when one is given. A client at
 * its issuance limit is refused (429) whatever it sent. A good secret is counted right after
 * (beginChain), which refuses one past the limit, so a secret checked by an HMAC is checked first
 * and the limit read only when it fails: one Redis call per token request. A refresh, and a
 * secret stored as an earlier scrypt hash, read the limit first: at its limit a client costs no
 * refresh-token lookup and no scrypt.
 */
async function authenticateClient(
  deps: ModelDeps,
  clientKey: string,
  clientSecret: string | undefined | null,
) {
  const record = await findClientByKey(deps.db, clientKey);
  if (!record) {
    // An unknown key costs what a known one does (versionOfSecret's dummy HMAC).
    if (clientSecret != null) await versionOfSecret(deps, null, clientSecret);
    return false;
  }
  const checkFirst = clientSecret == null || !deps.secrets.isFast(record.secret_hash);
  if (checkFirst) await deps.issueLimit.check(record.id);
  let secretVersion = record.secret_version;
  if (clientSecret != null) {
    const version = await versionOfSecret(deps, record, clientSecret);
    if (version === null) {
      if (!checkFirst) await deps.issueLimit.check(record.id);
      return false;
    }
    secretVersion = version;
  }
  assertMayObtainTokens(record);
  return toOAuthClient(record, secretVersion);
}

/**
 * getUserFromClient: called by both client-credentials grants once the client authenticated,
 * before a pair is made: where a token request is counted (issue-limit.ts).
 */
async function beginChain(deps: ModelDeps, client: OAuthClient): Promise<OAuthUser> {
  await deps.issueLimit.count(client.record.id);
  return {
    clientId: client.record.id,
    chainId: randomUUID(),
    beginsChain: true,
    chainStartedAt: null,
    generation: client.record.token_generation,
    secretVersion: client.secretVersion,
  };
}

/**
 * A token to hand out: keyed, or of the earlier form while the earlier release may still answer
 * partners beside this one during a rolling upgrade, since it refuses keyed tokens unseen
 * (earlier-tokens.ts).
 */
async function issuedToken(deps: ModelDeps, keyed: () => string): Promise<string> {
  return (await deps.earlier.earlierReleaseMayRun()) ? deps.checks.earlierToken() : keyed();
}

/** Whether both tokens of a pair carry the keyed check (either may be of the earlier form). */
function pairIsKeyed(deps: ModelDeps, token: OAuth2Server.Token): boolean {
  const refresh = token.refreshToken;
  return (
    deps.checks.accessForm(token.accessToken)?.form === 'keyed' &&
    (!refresh || deps.checks.refreshForm(refresh)?.form === 'keyed')
  );
}

/** saveToken: the pair of a token request, or of a refresh of its chain. */
async function savePair(
  deps: ModelDeps,
  token: OAuth2Server.Token,
  client: OAuthClient,
  user: OAuthUser,
) {
  const { chainId } = user;
  const chainStartedAt = user.chainStartedAt ?? new Date();
  const refreshExpiresAt = refreshEndOf(token, chainStartedAt, deps.chainMaxMs);
  const row = {
    client_id: client.record.id,
    chain_id: chainId,
    chain_started_at: chainStartedAt,
    generation: user.generation,
    secret_version: user.secretVersion,
    keyed_check: pairIsKeyed(deps, token),
    issued_by_keyed_release: true,
    access_token_hash: sha256(token.accessToken),
    refresh_token_hash: token.refreshToken ? sha256(token.refreshToken) : null,
    scopes: token.scope ?? [],
    access_expires_at: token.accessTokenExpiresAt ?? new Date(),
    refresh_expires_at: refreshExpiresAt ?? token.accessTokenExpiresAt ?? new Date(),
  };
  if (user.beginsChain) {
    await pgRows(readModelPool(deps.db), insertPair(row));
  } else {
    await saveFollowingPair(deps.db, chainId, row);
  }
  return {
    ...token,
    ...(refreshExpiresAt ? { refreshTokenExpiresAt: refreshExpiresAt } : {}),
    client,
    user,
  };
}

/**
 * A token request's pair, the first of its chain: one statement on the pool, without the ORM's
 * cost per query (decision 0003). The id is made here, as the ORM made it (the column has no
 * default).
 */
const insertPair = (row: FirstPairRow) => sql`
  INSERT INTO api_tokens (id, client_id, chain_id, chain_started_at, generation, secret_version,
                          keyed_check, issued_by_keyed_release, access_token_hash,
                          refresh_token_hash, scopes, access_expires_at, refresh_expires_at)
  VALUES (${randomUUID()}::uuid, ${row.client_id}, ${row.chain_id}::uuid, ${row.chain_started_at},
          ${row.generation}, ${row.secret_version}, ${row.keyed_check},
          ${row.issued_by_keyed_release}, ${row.access_token_hash}, ${row.refresh_token_hash},
          ${row.scopes}::text[], ${row.access_expires_at}, ${row.refresh_expires_at})`;

/**
 * A concurrent replay may be revoking this chain right now; the chain lock orders the two, so a
 * pair saved after the chain was found compromised is born revoked.
 */
async function saveFollowingPair(
  db: ReadModelClient,
  chainId: string,
  row: PairRow,
): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${chainId}))`;
    const compromised = await tx.apiToken.findFirst({
      where: { chain_id: chainId, revoke_reason: 'reuse' },
      select: { id: true },
    });
    await tx.apiToken.create({
      data: compromised ? { ...row, revoked_at: new Date(), revoke_reason: 'reuse' } : row,
    });
  });
}

/**
 * getRefreshToken: the pair a refresh token may be exchanged for, or null. Reuse ends its chain
 * first; then the refusals (refreshRefused) and the client's right to tokens, all before the
 * token is counted against its client's issuance.
 */
async function findRefreshablePair(deps: ModelDeps, refreshToken: string) {
  const form = await formOf(deps, refreshToken);
  if (!form) return null;
  const row = await deps.db.apiToken.findUnique({
    where: { refresh_token_hash: sha256(refreshToken) },
    include: { client: true },
  });
  if (!row) {
    // One of ours, no longer kept: a rotated token presented after the retention purge.
    if (form.form === 'keyed' && form.chainId) await revokeLiveChain(deps, form.chainId);
    return null;
  }
  if (row.rotated_at) {
    // A rotated refresh token presented again: someone holds a copy (RFC 9700 §4.14).
    await revokeChainAfterReuse(deps, row.chain_id, row.client_id);
    return null;
  }
  if (refreshRefused(row, deps.chainMaxMs)) return null;
  assertMayObtainTokens(row.client);
  // Counted before the library rotates the pair: a refused refresh keeps its token usable.
  await deps.issueLimit.count(row.client_id);
  return toRefreshToken(refreshToken, row);
}

/** The library's form of a stored pair about to be refreshed; its user follows the chain. */
function toRefreshToken(refreshToken: string, row: RefreshRow) {
  return {
    refreshToken,
    refreshTokenExpiresAt: row.refresh_expires_at,
    scope: row.scopes,
    client: toOAuthClient(row.client),
    user: {
      clientId: row.client_id,
      chainId: row.chain_id,
      beginsChain: false,
      chainStartedAt: row.chain_started_at,
      generation: row.generation,
      secretVersion: row.secret_version,
    } satisfies OAuthUser,
    tokenId: row.id,
  };
}

/**
 * revokeToken: called by the refresh grant on the old pair: rotation, won by exactly one caller.
 */
async function rotatePair(deps: ModelDeps, token: OAuth2Server.RefreshToken): Promise<boolean> {
  const tokenId = (token as { tokenId?: string }).tokenId;
  const { count } = await deps.db.apiToken.updateMany({
    where: { id: tokenId, rotated_at: null, revoked_at: null },
    data: { rotated_at: new Date(), revoked_at: new Date(), revoke_reason: 'rotated' },
  });
  const user = token.user as OAuthUser;
  if (count === 0) {
    await revokeChainAfterReuse(deps, user.chainId, user.clientId);
    return false;
  }
  await invalidate(deps, user.clientId);
  return true;
}

/** The client key owning a refresh token, so /auth/refresh needs no client credentials. */
async function clientKeyOfRefreshToken(
  deps: ModelDeps,
  refreshToken: string,
): Promise<string | null> {
  const form = await formOf(deps, refreshToken);
  if (!form) return null;
  const select = { client: { select: { client_key: true } } };
  const row = await deps.db.apiToken.findUnique({
    where: { refresh_token_hash: sha256(refreshToken) },
    select,
  });
  if (row || form.form !== 'keyed' || !form.chainId) return row?.client.client_key ?? null;
  // Its row purged: the chain still names the client (getRefreshToken detects the reuse).
  const ofChain = await deps.db.apiToken.findFirst({ where: { chain_id: form.chainId }, select });
  return ofChain?.client.client_key ?? null;
}

async function revokeAccessToken(
  deps: ModelDeps,
  tokenId: string,
  clientId: number,
): Promise<void> {
  await deps.db.apiToken.updateMany({
    where: { id: tokenId, revoked_at: null },
    data: { revoked_at: new Date(), revoke_reason: 'revoked' },
  });
  await invalidate(deps, clientId);
}

/** Every token of the client, those a refresh racing this call saves included. */
async function revokeAllOfClient(deps: ModelDeps, clientId: number): Promise<void> {
  await deps.db.$transaction((tx) => endClientTokens(tx, clientId, 'revoked'));
  await invalidate(deps, clientId);
}

export function createOAuthModel(deps: ModelDeps) {
  return {
    getClient: (clientKey: string, clientSecret: string | undefined | null) =>
      authenticateClient(deps, clientKey, clientSecret),
    getUserFromClient: (client: OAuthClient) => beginChain(deps, client),
    validateScope: (_user: OAuthUser, client: OAuthClient, requested?: string[]) =>
      grantedScopes(client, requested),
    generateAccessToken: () => issuedToken(deps, () => deps.checks.accessToken()),
    generateRefreshToken: (_client: OAuthClient, user: OAuthUser) =>
      issuedToken(deps, () => deps.checks.refreshToken(user.chainId)),
    saveToken: (token: OAuth2Server.Token, client: OAuthClient, user: OAuthUser) =>
      savePair(deps, token, client, user),
    // The library's model type requires it for bearer authentication, which the gateway does
    // itself (http/authenticate.ts with access-tokens.ts); refusing everything is the safe answer.
    getAccessToken: (): Promise<null> => Promise.resolve(null),
    getRefreshToken: (refreshToken: string) => findRefreshablePair(deps, refreshToken),
    revokeToken: (token: OAuth2Server.RefreshToken) => rotatePair(deps, token),
    clientKeyOfRefreshToken: (refreshToken: string) => clientKeyOfRefreshToken(deps, refreshToken),
    revokeAccessToken: (tokenId: string, clientId: number) =>
      revokeAccessToken(deps, tokenId, clientId),
    revokeAllOfClient: (clientId: number) => revokeAllOfClient(deps, clientId),
  };
}

const min = (a: Date, b: Date) => (a < b ? a : b);

export type OAuthModel = ReturnType<typeof createOAuthModel>;
