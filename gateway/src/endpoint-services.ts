// What the API's endpoint handlers may use beside the read model, assembled by app.ts. Declared
// here, beside the features, so the declaration machinery (http/endpoint.ts) knows no feature:
// every endpoint is declared with this file's defineEndpoint.
import type { Change } from '#api/changes/change-page.js';
import type { CursorCodec } from '#api/changes/cursor.js';
import type { Config } from '#common/config.js';
import type { PgQueryable } from '#read-model/sql.js';
import type { AuthThrottle } from './features/auth/auth-throttle.js';
import type { TokenService } from './features/auth/tokens.service.js';
import type { MemberWrites } from './features/members/members.write.js';
import type { SandboxEvents } from './features/sandbox/sandbox.events.js';
import type { WebhookService } from './features/webhooks/webhooks.service.js';
import { endpointDefinition } from './http/endpoint.js';
import type { ClientLimiter } from './http/rate-limit/client-limiter.js';

export interface EndpointServices {
  tokens: TokenService;
  throttle: AuthThrottle;
  memberWrites: MemberWrites;
  /** How long the change feed keeps deletes (CHANGES_RETENTION_DAYS); its signed cursors. */
  changes: {
    retentionMs: number;
    cursors: CursorCodec;
    /** Erased members' deletions told to their recipients as erasures (api/changes/erasures.ts). */
    erasures: (clientId: number, changes: Change[]) => Promise<Change[]>;
  };
  webhooks: WebhookService;
  /** GET /usage: the counts (the read model's pool), the limiter's windows, the default limits. */
  usage: { pool: PgQueryable; limiter: ClientLimiter; rateLimits: Config['rateLimit'] };
  /** Changes on demand in the sandbox's club; undefined for a live client (its 404). */
  sandbox: SandboxEvents | undefined;
}

export const defineEndpoint = endpointDefinition<EndpointServices>();
