// Bearer tokens as the gateway checks them on every protected request: looked up by SHA-256 in
// PostgreSQL, held briefly in a per-process cache that the client's epoch (client-epochs.ts)
// invalidates on every instance at once. See docs/decisions/0005.
import type { ReadModelClient } from '#common/databases.js';
import { clientClasses, type ClassMask } from '#api/data-classes.js';
import { dataScopeOf, type DataScope } from '#api/data-scope.js';
import { currentScopes } from '#api/scopes.js';
import type { Credentials } from '#api/webhooks/credentials.js';
import { secretEndsAt } from './secret-overlap.js';

export interface AuthContext {
  clientId: number;
  clientKey: string;
  tokenId: string;
  scopes: string[];
  dataScope: DataScope;
  /** The classes of members' personal data the client holds now (api/data-classes.ts). */
  dataClasses: ClassMask;
  rateLimits: { minute: number | null; hour: number | null; day: number | null };
  /** What the token's chain began under; a webhook subscription it makes or moves records them. */
  credentials: Credentials;
}

export interface ActiveToken {
  auth: AuthContext;
  /**
   * Access-token expiry, or the end of the overlap of the secret that issued it if earlier (ms
   * since the epoch); checked on every request, cached or not.
   */
  expiresAt: number;
}

/** The token's authentication as PostgreSQL has it now, or null when it may not be used. */
export async function readAccessToken(
  db: ReadModelClient,
  tokenHash: string,
): Promise<ActiveToken | null> {
  const row = await db.apiToken.findUnique({
    where: { access_token_hash: tokenHash },
    include: { client: true },
  });
  // A pair of an earlier generation was saved after its client's tokens were all ended.
  if (!row || row.revoked_at || !row.client.is_active) return null;
  if (row.generation !== row.client.token_generation) return null;
  // A pair of a secret replaced with an overlap ends with the overlap, cached or not.
  const secretEnd = secretEndsAt(row.secret_version, row.client);
  if (secretEnd <= Date.now()) return null;
  const held = currentScopes(row.client) as string[];
  const client = row.client;
  return {
    auth: {
      clientId: client.id,
      clientKey: client.client_key,
      tokenId: row.id,
      scopes: row.scopes.filter((scope) => held.includes(scope)),
      dataScope: dataScopeOf(client.branch_id),
      dataClasses: clientClasses(client),
      rateLimits: {
        minute: client.rate_limit_minute,
        hour: client.rate_limit_hour,
        day: client.rate_limit_day,
      },
      credentials: { generation: row.generation, secretVersion: row.secret_version },
    },
    expiresAt: Math.min(row.access_expires_at.getTime(), secretEnd),
  };
}

export interface CachedToken extends ActiveToken {
  /** The client's epoch read before the token was, so a later change always shows. */
  epoch: string;
  cachedUntil: number;
}

/**
 * Token hash -> what authentication found, per process. Entries are served for `ttlMs` at most (a
 * bound for the one case the epoch cannot cover: an instance that changed a client while it could
 * not reach Redis); an expired one stays until replaced, deleted or evicted, naming its client
 * for the next check (http/authenticate.ts). The oldest go first when the cache is full.
 */
export class TokenCache {
  private readonly entries = new Map<string, CachedToken>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The entry, expired or not (`cachedUntil` tells): the caller decides what an expired one is good
   * for.
   */
  get(hash: string): CachedToken | undefined {
    return this.entries.get(hash);
  }

  set(hash: string, token: ActiveToken, epoch: string, now = Date.now()): CachedToken {
    const entry = { ...token, epoch, cachedUntil: now + this.ttlMs };
    if (this.ttlMs <= 0) return entry;
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(hash, entry);
    return entry;
  }

  delete(hash: string): void {
    this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
  }
}
