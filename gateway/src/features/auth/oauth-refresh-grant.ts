// The refresh grant's side of the OAuth model (oauth-model.ts): the stored pair a refresh token
// may be exchanged for (getRefreshToken), refused, or its chain ended when the token was used
// before, and the client a refresh token belongs to.
import type { ReadModelPrisma } from '#common/databases.js';
import { sha256 } from '../../trust/client-secrets.js';
import { secretEndsAt } from '../../trust/secret-overlap.js';
import { assertMayObtainTokens } from './oauth-client-grant.js';
import { toOAuthClient, type ModelDeps, type OAuthUser } from './oauth-model-deps.js';
import { revokeChainAfterReuse, revokeLiveChain } from './oauth-token-store.js';

/** A stored pair found by its refresh token, with its client. */
type RefreshRow = ReadModelPrisma.ApiTokenGetPayload<{ include: { client: true } }>;

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

/** The form of a refresh token that may be ours; null: refused without a lookup. */
async function formOf(deps: ModelDeps, refreshToken: string) {
  const form = deps.checks.refreshForm(refreshToken);
  if (form?.form === 'earlier' && !(await deps.earlier.refreshMayLive())) return null;
  return form;
}

/**
 * getRefreshToken: the pair a refresh token may be exchanged for, or null. Reuse ends its chain
 * first; then the refusals (refreshRefused) and the client's right to tokens, all before the
 * token is counted against its client's issuance.
 */
export async function findRefreshablePair(deps: ModelDeps, refreshToken: string) {
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

/** The client key owning a refresh token, so /auth/refresh needs no client credentials. */
export async function clientKeyOfRefreshToken(
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
