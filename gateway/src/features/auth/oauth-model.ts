// The token engine's storage: @node-oauth/oauth2-server drives the grants, this model keeps
// clients and token pairs in PostgreSQL, as SHA-256 digests only. Every revocation replaces the
// client's epoch in Redis before it returns, so every gateway instance drops its cached copy of
// the client's tokens on its next request (client-epochs.ts).
import { randomUUID } from 'node:crypto';
import type OAuth2Server from '@node-oauth/oauth2-server';
import type { ReadModelClient } from '../../../../common/databases.js';
import type { Logger } from '../../../../common/logger.js';
import { insufficientScope } from '../../http/errors.js';
import { generateToken, sha256, verifySecret } from '../clients/client-secrets.js';
import {
  currentScopes,
  findClientByKey,
  type ApiClientRecord,
} from '../clients/clients.repository.js';
import type { ClientEpochs } from './client-epochs.js';

export interface OAuthClient extends OAuth2Server.Client {
  record: ApiClientRecord;
}

/** The "user" of a client-credentials token is the client itself, plus the token chain. */
export interface OAuthUser extends OAuth2Server.User {
  clientId: number;
  chainId: string | null;
}

const GRANTS = ['client_credentials', 'refresh_token'];

function toOAuthClient(record: ApiClientRecord): OAuthClient {
  return { id: String(record.id), grants: GRANTS, record };
}

/** A disabled client, or one holding no scope, may not obtain tokens (docs/decisions/0003-tokens.md). */
function assertMayObtainTokens(record: ApiClientRecord): void {
  if (!record.is_active) throw insufficientScope('API istemcisi devre dışı.');
  if (currentScopes(record).length === 0)
    throw insufficientScope('API istemcisinin hiçbir yetkisi yok.');
}

export function createOAuthModel(deps: {
  db: ReadModelClient;
  epochs: ClientEpochs;
  logger: Logger;
}) {
  const { db } = deps;

  /**
   * After a revocation is committed. A Redis that cannot be reached is not fatal: the revocation
   * stands in PostgreSQL, and instances that cannot reach Redis either check PostgreSQL on every
   * request and empty their caches when the connection drops (decision 0005).
   */
  async function invalidate(clientId: number): Promise<void> {
    await deps.epochs.bump(clientId).catch((error: unknown) => {
      deps.logger.warn({ err: error, clientId }, 'could not announce a revocation in Redis');
    });
  }

  /** Takes the chain lock that saveToken takes, so no pair of the chain escapes revocation. */
  async function revokeChainAfterReuse(chainId: string, clientId: number): Promise<void> {
    await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${chainId}))`;
      await tx.apiToken.updateMany({
        where: { chain_id: chainId, OR: [{ revoked_at: null }, { revoke_reason: 'rotated' }] },
        data: { revoked_at: new Date(), revoke_reason: 'reuse' },
      });
    });
    await invalidate(clientId);
  }

  return {
    async getClient(clientKey: string, clientSecret: string | undefined | null) {
      const record = await findClientByKey(db, clientKey);
      if (clientSecret != null) {
        const valid = await verifySecret(clientSecret, record?.secret_hash ?? null);
        if (!valid || !record) return false;
      } else if (!record) {
        return false;
      }
      assertMayObtainTokens(record);
      return toOAuthClient(record);
    },

    getUserFromClient(client: OAuthClient): Promise<OAuthUser> {
      return Promise.resolve({ clientId: client.record.id, chainId: null });
    },

    validateScope(_user: OAuthUser, client: OAuthClient, requested?: string[]) {
      const held = currentScopes(client.record);
      if (!requested || requested.length === 0) return Promise.resolve(held);
      const allowed = requested.every((scope) => (held as string[]).includes(scope));
      return Promise.resolve(allowed ? requested : false);
    },

    generateAccessToken: () => Promise.resolve(generateToken()),
    generateRefreshToken: () => Promise.resolve(generateToken()),

    async saveToken(token: OAuth2Server.Token, client: OAuthClient, user: OAuthUser) {
      const chainId = user.chainId ?? randomUUID();
      const row = {
        client_id: client.record.id,
        chain_id: chainId,
        access_token_hash: sha256(token.accessToken),
        refresh_token_hash: token.refreshToken ? sha256(token.refreshToken) : null,
        scopes: token.scope ?? [],
        access_expires_at: token.accessTokenExpiresAt ?? new Date(),
        refresh_expires_at: token.refreshTokenExpiresAt ?? token.accessTokenExpiresAt ?? new Date(),
      };
      if (user.chainId === null) {
        await db.apiToken.create({ data: row });
      } else {
        // A concurrent replay may be revoking this chain right now; the chain lock orders the
        // two, so a pair saved after the chain was found compromised is born revoked.
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
      return { ...token, client, user };
    },

    // The library's model type requires it for bearer authentication, which the gateway does
    // itself (http/authenticate.ts with access-tokens.ts); refusing everything is the safe answer.
    getAccessToken: (): Promise<null> => Promise.resolve(null),

    async getRefreshToken(refreshToken: string) {
      const row = await db.apiToken.findUnique({
        where: { refresh_token_hash: sha256(refreshToken) },
        include: { client: true },
      });
      if (!row) return null;
      if (row.rotated_at) {
        // A rotated refresh token presented again: someone holds a copy (RFC 9700 §4.14).
        await revokeChainAfterReuse(row.chain_id, row.client_id);
        return null;
      }
      if (row.revoked_at) return null;
      assertMayObtainTokens(row.client);
      return {
        refreshToken,
        refreshTokenExpiresAt: row.refresh_expires_at,
        scope: row.scopes,
        client: toOAuthClient(row.client),
        user: { clientId: row.client_id, chainId: row.chain_id } satisfies OAuthUser,
        tokenId: row.id,
      };
    },

    /** Called by the refresh grant on the old pair: rotation, won by exactly one caller. */
    async revokeToken(token: OAuth2Server.RefreshToken): Promise<boolean> {
      const tokenId = (token as { tokenId?: string }).tokenId;
      const { count } = await db.apiToken.updateMany({
        where: { id: tokenId, rotated_at: null, revoked_at: null },
        data: { rotated_at: new Date(), revoked_at: new Date(), revoke_reason: 'rotated' },
      });
      const user = token.user as OAuthUser;
      if (count === 0) {
        if (user.chainId) await revokeChainAfterReuse(user.chainId, user.clientId);
        return false;
      }
      await invalidate(user.clientId);
      return true;
    },

    /** The client key owning a refresh token, so /auth/refresh needs no client credentials. */
    async clientKeyOfRefreshToken(refreshToken: string): Promise<string | null> {
      const row = await db.apiToken.findUnique({
        where: { refresh_token_hash: sha256(refreshToken) },
        select: { client: { select: { client_key: true } } },
      });
      return row?.client.client_key ?? null;
    },

    async revokeAccessToken(tokenId: string, clientId: number): Promise<void> {
      await db.apiToken.updateMany({
        where: { id: tokenId, revoked_at: null },
        data: { revoked_at: new Date(), revoke_reason: 'revoked' },
      });
      await invalidate(clientId);
    },

    async revokeAllOfClient(clientId: number): Promise<void> {
      await db.apiToken.updateMany({
        where: { client_id: clientId, revoked_at: null },
        data: { revoked_at: new Date(), revoke_reason: 'revoked' },
      });
      await invalidate(clientId);
    },
  };
}

export type OAuthModel = ReturnType<typeof createOAuthModel>;
