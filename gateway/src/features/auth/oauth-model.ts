// The token engine's storage: @node-oauth/oauth2-server drives the grants, this model keeps
// clients and token pairs in PostgreSQL. Tokens are stored only as SHA-256 digests, so every
// gateway instance sees a revocation, rotation or expiry on its next request.
import { randomUUID } from 'node:crypto';
import type OAuth2Server from '@node-oauth/oauth2-server';
import type { ReadModelClient } from '../../../../common/databases.js';
import { insufficientScope } from '../../http/errors.js';
import { generateToken, sha256, verifySecret } from '../clients/client-secrets.js';
import {
  currentScopes,
  findClientByKey,
  type ApiClientRecord,
} from '../clients/clients.repository.js';

export interface OAuthClient extends OAuth2Server.Client {
  record: ApiClientRecord;
}

/** The "user" of a client-credentials token is the client itself, plus the token chain. */
export interface OAuthUser extends OAuth2Server.User {
  clientId: number;
  chainId: string | null;
}

export interface AuthenticatedToken extends OAuth2Server.Token {
  client: OAuthClient;
  user: OAuthUser;
  tokenId: string;
}

const GRANTS = ['client_credentials', 'refresh_token'];

function toOAuthClient(record: ApiClientRecord): OAuthClient {
  return { id: String(record.id), grants: GRANTS, record };
}

/** A disabled client, or one holding no scope, may not obtain tokens (decisions.md). */
function assertMayObtainTokens(record: ApiClientRecord): void {
  if (!record.is_active) throw insufficientScope('API istemcisi devre dışı.');
  if (currentScopes(record).length === 0)
    throw insufficientScope('API istemcisinin hiçbir yetkisi yok.');
}

export function createOAuthModel(db: ReadModelClient) {
  /** Takes the chain lock that saveToken takes, so no pair of the chain escapes revocation. */
  async function revokeChainAfterReuse(chainId: string): Promise<void> {
    await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${chainId}))`;
      await tx.apiToken.updateMany({
        where: { chain_id: chainId, OR: [{ revoked_at: null }, { revoke_reason: 'rotated' }] },
        data: { revoked_at: new Date(), revoke_reason: 'reuse' },
      });
    });
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

    async getAccessToken(accessToken: string): Promise<AuthenticatedToken | null> {
      const row = await db.apiToken.findUnique({
        where: { access_token_hash: sha256(accessToken) },
        include: { client: true },
      });
      if (!row || row.revoked_at || !row.client.is_active) return null;
      const held = currentScopes(row.client) as string[];
      return {
        accessToken,
        accessTokenExpiresAt: row.access_expires_at,
        scope: row.scopes.filter((scope) => held.includes(scope)),
        client: toOAuthClient(row.client),
        user: { clientId: row.client_id, chainId: row.chain_id },
        tokenId: row.id,
      };
    },

    async getRefreshToken(refreshToken: string) {
      const row = await db.apiToken.findUnique({
        where: { refresh_token_hash: sha256(refreshToken) },
        include: { client: true },
      });
      if (!row) return null;
      if (row.rotated_at) {
        // A rotated refresh token presented again: someone holds a copy (RFC 9700 §4.14).
        await revokeChainAfterReuse(row.chain_id);
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
      if (count === 0) {
        const user = token.user as OAuthUser;
        if (user.chainId) await revokeChainAfterReuse(user.chainId);
        return false;
      }
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

    async revokeAccessToken(tokenId: string): Promise<void> {
      await db.apiToken.updateMany({
        where: { id: tokenId, revoked_at: null },
        data: { revoked_at: new Date(), revoke_reason: 'revoked' },
      });
    },

    async revokeAllOfClient(clientId: number): Promise<void> {
      await db.apiToken.updateMany({
        where: { client_id: clientId, revoked_at: null },
        data: { revoked_at: new Date(), revoke_reason: 'revoked' },
      });
    },
  };
}

export type OAuthModel = ReturnType<typeof createOAuthModel>;
