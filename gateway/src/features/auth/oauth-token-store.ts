// The OAuth model's token storage (oauth-model.ts): pairs kept in PostgreSQL as SHA-256 digests
// only, rotated and revoked. Every revocation replaces the client's epoch in Redis before it
// returns, so every gateway instance drops its cached copy of the client's tokens on its next
// request (client-epochs.ts). A pair carries the client's token generation from the moment its
// chain's client authenticated, and the refresh chain's start: a pair saved after its client's
// tokens were all ended is born dead (decision 0003).
import { randomUUID } from 'node:crypto';
import type OAuth2Server from '@node-oauth/oauth2-server';
import { readModelPool, type ReadModelClient, type ReadModelPrisma } from '#common/databases.js';
import type { ApiToken } from '#prisma/generated/read-model/client.js';
import { pgRows, sql } from '#read-model/sql.js';
import { sha256 } from '../../trust/client-secrets.js';
import { endClientTokens } from '../clients/clients.repository.js';
import type { ModelDeps, OAuthClient, OAuthUser } from './oauth-model-deps.js';

/** A pair as saved: its tokens as digests only. */
type PairRow = ReadModelPrisma.ApiTokenUncheckedCreateInput;
/** The columns savePair gives a pair: the model's, but those the database or later acts set. */
type FirstPairRow = Omit<
  ApiToken,
  'id' | 'rotated_at' | 'revoked_at' | 'revoke_reason' | 'created_at'
>;

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
export async function revokeChainAfterReuse(
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
export async function revokeLiveChain(deps: ModelDeps, chainId: string): Promise<void> {
  const live = await deps.db.apiToken.findFirst({
    where: { chain_id: chainId, revoked_at: null, refresh_expires_at: { gt: new Date() } },
    select: { client_id: true },
  });
  if (live) await revokeChainAfterReuse(deps, chainId, live.client_id);
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
export async function savePair(
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
 * revokeToken: called by the refresh grant on the old pair: rotation, won by exactly one caller.
 */
export async function rotatePair(
  deps: ModelDeps,
  token: OAuth2Server.RefreshToken,
): Promise<boolean> {
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

export async function revokeAccessToken(
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
export async function revokeAllOfClient(deps: ModelDeps, clientId: number): Promise<void> {
  await deps.db.$transaction((tx) => endClientTokens(tx, clientId, 'revoked'));
  await invalidate(deps, clientId);
}

const min = (a: Date, b: Date) => (a < b ? a : b);
