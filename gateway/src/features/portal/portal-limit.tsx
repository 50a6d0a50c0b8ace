// A bound on what a signed-in partner's browser can make the gateway do: its form posts (new
// subscriptions, test events, replays, secret rotations) and usage CSV downloads, each some
// queries or more, at most PORTAL_REQUESTS_PER_MINUTE per client across every gateway. The
// counting is express-rate-limit over rate-limit-redis's store, as for the token endpoints'
// throttle (auth/auth-throttle.ts); pages that only show are not counted.
import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Config } from '#common/config.js';
import type { RedisClient } from '#common/redis.js';
import { serviceUnavailable } from '../../http/errors.js';
import { GatewayRedisStore } from '../../http/rate-limit/rate-limit-store.js';
import { PORTAL_AREA, type SignedInPartner } from '../../pages/areas.js';
import { languageOf } from '../../pages/language.js';
import { Frame, Notice, sendAreaPage } from '../../pages/layout.js';
import { visitorOf, whoOf } from '../../pages/sign-in.js';
import { USAGE_CSV } from './usage.page.js';

export const PORTAL_REQUESTS_PER_MINUTE = 30;

const counted = (method: string, path: string) => method === 'POST' || path === USAGE_CSV;

/** Mounted after the partner's session is checked: the count is its client's. */
export function portalLimit(deps: { redis: RedisClient; config: Config }): RequestHandler {
  const { config } = deps;
  return rateLimit({
    windowMs: 60_000,
    limit: PORTAL_REQUESTS_PER_MINUTE,
    // RATE_LIMIT_REDIS_FAILURE, as for the API's limits: open lets the request through.
    store: new GatewayRedisStore(deps.redis, `${config.redis.prefix}:portal-limit:`, () =>
      serviceUnavailable(5),
    ),
    passOnStoreError: config.rateLimit.onRedisFailure === 'open',
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    // The key is the client, never an address: the address checks do not apply.
    validate: { trustProxy: false, xForwardedForHeader: false },
    skip: (req) => !counted(req.method, `${req.baseUrl}${req.path}`),
    keyGenerator: (_req, res) => `{client:${whoOf<SignedInPartner>(res).client.id}}`,
    handler: (req, res, next) => {
      const language = languageOf(req, res, PORTAL_AREA);
      const { t } = language;
      sendAreaPage(
        req,
        res,
        () => (
          <Frame
            area={PORTAL_AREA}
            language={language}
            visitor={visitorOf<SignedInPartner>(res)}
            title={t.errors.tooManyTitle}
          >
            <Notice kind="error">
              <p safe>{t.errors.tooMany(PORTAL_REQUESTS_PER_MINUTE)}</p>
            </Notice>
          </Frame>
        ),
        429,
      ).catch(next);
    },
  });
}
