// A partner's browser in the portal, as the portal's tests drive it: ConsoleBrowser's cookie,
// CSRF token and same-origin form posts, signed in through a portal link.
import { storePortalLink } from '../../gateway/src/features/portal/portal-links.js';
import { testLinkKeys } from './environment.js';
import { ConsoleBrowser } from './console-session.js';
import type { RunningGateway } from './gateway.js';

/** A portal link's token for the client, as `npm run clients -- portal-link` stores it. */
export async function portalLinkToken(
  gateway: RunningGateway,
  prefix: string,
  client: { id: number },
  ttlMs = 60_000,
): Promise<string> {
  const row = await gateway.db.apiClient.findUniqueOrThrow({ where: { id: client.id } });
  return storePortalLink({ redis: gateway.redis, ...testLinkKeys(prefix) }, row, ttlMs);
}

/** Opens a fresh portal link for the client and presses its button. */
export async function partnerSignedIn(
  gateway: RunningGateway,
  prefix: string,
  client: { id: number; client_key: string },
): Promise<ConsoleBrowser> {
  const browser = new ConsoleBrowser(gateway);
  const token = await portalLinkToken(gateway, prefix, client);
  await browser.useLink(`/portal/sign-in/${token}`);
  return browser;
}

/** GET /api/v1/usage's rows (grouped by operation) as the portal's CSV download writes them. */
export const usageCsvLines = (rows: any[]): string[] =>
  rows.map((r) =>
    [
      r.period_start,
      r.operation,
      r.requests,
      r.client_errors,
      r.server_errors,
      r.rate_limited,
      r.bytes_out,
      ...[r.latency_ms.p50, r.latency_ms.p95, r.latency_ms.p99].map((n: number | null) => n ?? ''),
    ].join(','),
  );
