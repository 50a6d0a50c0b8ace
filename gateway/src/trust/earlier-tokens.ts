// How long tokens of the earlier, unkeyed form (token-checks.ts) may still be presented: until the
// last pair of that form still usable expires. Until then such a token is looked up like any
// other, so an upgrade logs no partner out; afterwards it is refused without a lookup. Pairs of
// that form are only ever fewer (an instance of the earlier version may still save some during a
// rolling upgrade), so the answer is read again at most once a minute.
import type { ReadModelClient } from '#common/databases.js';

const REREAD_MS = 60_000;

interface Horizon {
  /** ms since the epoch; 0 when no pair of the earlier form is left. */
  access: number;
  refresh: number;
  readAt: number;
}

export function earlierTokens(db: ReadModelClient) {
  let horizon: Promise<Horizon> | null = null;

  async function read(): Promise<Horizon> {
    const { _max } = await db.apiToken.aggregate({
      _max: { access_expires_at: true, refresh_expires_at: true },
      // A rotated refresh token is still looked up: presented again, it revokes its chain.
      where: { keyed_check: false, OR: [{ revoked_at: null }, { revoke_reason: 'rotated' }] },
    });
    return {
      access: _max.access_expires_at?.getTime() ?? 0,
      refresh: _max.refresh_expires_at?.getTime() ?? 0,
      readAt: Date.now(),
    };
  }

  async function current(): Promise<Horizon> {
    const known = await horizon?.catch(() => null);
    if (known && Date.now() - known.readAt < REREAD_MS) return known;
    horizon = read();
    return horizon;
  }

  return {
    /** Whether an access token of the earlier form may still be one of ours. */
    accessMayLive: async () => Date.now() < (await current()).access,
    /** Whether a refresh token of the earlier form may still be one of ours. */
    refreshMayLive: async () => Date.now() < (await current()).refresh,
  };
}

export type EarlierTokens = ReturnType<typeof earlierTokens>;
