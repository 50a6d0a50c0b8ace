// Tokens of the earlier, unkeyed form (token-checks.ts), issued by the release before keyed
// checks, and by this one while that release may still run beside it during a rolling upgrade.
//
// Accepted: until the last pair of that form still usable expires, such a token is looked up
// like any other, so an upgrade logs no partner out; afterwards it is refused without a lookup.
//
// Issued: the earlier release refuses a keyed token without a lookup, so while one of its
// gateways may still answer, a token this release hands out must be of the form both accept. The
// earlier release never names `issued_by_keyed_release`, so its pairs keep the column's default;
// while an access token one of them holds is still valid, that release may still be running (it
// issued the token at most one access lifetime ago), and tokens are issued in the earlier form.
// Once every such token has expired, keyed ones. A deployment that never ran the earlier release
// issues keyed tokens from the start.
//
// The answers are read again once a minute; a refusal, at most once a second (ahead).
import type { ReadModelClient } from '#common/databases.js';

const REREAD_MS = 60_000;
const RECHECK_MS = 1000;

interface Horizon {
  /** ms since the epoch; 0 when no pair of the earlier form is left. */
  access: number;
  refresh: number;
  /** The last access expiry of a pair the earlier release saved; 0 when none. */
  earlierRelease: number;
  readAt: number;
}

export function earlierTokens(db: ReadModelClient) {
  let horizon: Promise<Horizon> | null = null;

  async function read(): Promise<Horizon> {
    // One scan of the earlier form's pairs for the three answers. A rotated refresh token is
    // still looked up: presented again, it revokes its chain.
    const [row] = await db.$queryRaw<
      Record<'access' | 'refresh' | 'earlier_release', Date | null>[]
    >`SELECT
          max(access_expires_at) FILTER (WHERE revoked_at IS NULL OR revoke_reason = 'rotated') AS access,
          max(refresh_expires_at) FILTER (WHERE revoked_at IS NULL OR revoke_reason = 'rotated') AS refresh,
          max(access_expires_at) FILTER (WHERE NOT issued_by_keyed_release) AS earlier_release
        FROM api_tokens WHERE NOT keyed_check`;
    return {
      access: row?.access?.getTime() ?? 0,
      refresh: row?.refresh?.getTime() ?? 0,
      earlierRelease: row?.earlier_release?.getTime() ?? 0,
      readAt: Date.now(),
    };
  }

  async function current(maxAgeMs: number): Promise<Horizon> {
    const known = await horizon?.catch(() => null);
    if (known && Date.now() - known.readAt < maxAgeMs) return known;
    horizon = read();
    return horizon;
  }

  /**
   * Whether `end` of the horizon is still ahead. A "no" is only as good as the read behind it:
   * pairs any gateway saved since may reach further (issued during the upgrade, or with an access
   * lifetime shorter than the minute), so before refusing a token the horizon is read again, at
   * most once a second.
   */
  async function ahead(end: (h: Horizon) => number): Promise<boolean> {
    if (Date.now() < end(await current(REREAD_MS))) return true;
    return Date.now() < end(await current(RECHECK_MS));
  }

  return {
    /** Whether an access token of the earlier form may still be one of ours. */
    accessMayLive: () => ahead((h) => h.access),
    /** Whether a refresh token of the earlier form may still be one of ours. */
    refreshMayLive: () => ahead((h) => h.refresh),
    /**
     * Whether the earlier release may still answer partners: tokens are issued in its form. Its
     * pairs are only ever fewer, so the minute's answer stands.
     */
    earlierReleaseMayRun: async () => Date.now() < (await current(REREAD_MS)).earlierRelease,
  };
}

export type EarlierTokens = ReturnType<typeof earlierTokens>;
