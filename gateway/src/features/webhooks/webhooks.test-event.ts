// POST /webhooks/{id}/test (decision 0012): a signed `webhook.test` event sent at once to the
// subscription's URL, as a delivery is sent (api/webhooks/send.ts: the same headers, target
// rules, timeout, no redirect), its outcome answered rather than recorded: it is no event of the
// feed, so the delivery figures and the retries never see it. Counted per subscription, so the
// API cannot be turned into a partner's way to flood an address; answered in status, time, a
// 2xx's first bytes and fixed words for failures, so it cannot be a proxy or a port scanner.
import { randomUUID } from 'node:crypto';
import type { ReadModelClient } from '#common/databases.js';
import type { WebhookSecrets } from '#api/webhooks/secrets.js';
import { createSender, failureWords, type TryResult } from '#api/webhooks/send.js';
import { signedHeaders, signingSecrets } from '#api/webhooks/signing.js';
import type { TargetRules } from '#api/webhooks/targets.js';
import type { DeliveryOutcome } from '#api/webhooks/vocabulary.js';
import { AppError, insufficientScope } from '../../http/errors.js';
import { holdsTarget, OPERATOR, targetHeld } from './webhooks.rules.js';

/** Test events one subscription may send in a minute. */
export const TESTS_PER_MINUTE = 5;

export const TEST_EVENT_TYPE = 'webhook.test';

/** What a test event came to. */
export interface TestOutcome {
  webhook_id: string;
  outcome: DeliveryOutcome;
  status_code: number | null;
  duration_ms: number;
  /**
   * For a 2xx, the answer's first 1,024 characters; for a try that got no answer, fixed words
   * (failureWords); null otherwise: another status's body is not echoed.
   */
  response: string | null;
}

/** What a partner is told of a try: never the text of another status, nor an error's address. */
export function testAnswer(result: TryResult): Pick<TestOutcome, 'status_code' | 'response'> {
  return {
    status_code: result.statusCode,
    response: result.outcome === 'delivered' ? result.response : failureWords(result),
  };
}

export interface TestEventDeps {
  db: ReadModelClient;
  secrets: WebhookSecrets;
  targets: TargetRules;
  timeoutMs: number;
}

const tooManyTests = (retryAfter: number) =>
  new AppError({
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: `Bir abonelik dakikada en fazla ${TESTS_PER_MINUTE} test olayı gönderebilir; lütfen daha sonra tekrar deneyin.`,
    retryAfter,
  });

/** The body of a test event: the shape of every event, with data naming the subscription. */
export function testEventBody(subscriptionId: number, at: Date): string {
  return JSON.stringify({
    type: TEST_EVENT_TYPE,
    timestamp: at.toISOString(),
    data: { subscription_id: subscriptionId, message: 'Bu bir test olayıdır.' },
  });
}

/**
 * Counts the test in the subscription's minute (one statement, so tests at once cannot all see
 * room; a refused one counts too), then sends it. Null: the client has no such subscription.
 */
export async function sendTestEvent(
  deps: TestEventDeps,
  owner: number,
  id: number,
): Promise<TestOutcome | null> {
  const [counted] = await deps.db.$queryRaw<
    {
      tests: number;
      retry_after: number;
      url: string;
      reason: string | null;
      secret: string;
      previous_secret: string | null;
      previous_secret_until: Date | null;
    }[]
  >`
    UPDATE webhook_subscriptions
       SET tests_in_window = CASE WHEN test_window_at > now() - interval '1 minute'
                                  THEN tests_in_window + 1 ELSE 1 END,
           test_window_at = CASE WHEN test_window_at > now() - interval '1 minute'
                                 THEN test_window_at ELSE now() END
     WHERE id = ${id} AND client_id = ${owner}
    RETURNING tests_in_window AS tests,
              ceil(extract(epoch FROM test_window_at + interval '1 minute' - now()))::int
                AS retry_after,
              url, disabled_reason AS reason, secret, previous_secret, previous_secret_until`;
  if (!counted) return null;
  if (counted.tests > TESTS_PER_MINUTE) throw tooManyTests(Math.max(1, counted.retry_after));
  // The operator's disable stops every request to the target, a test's too.
  if (counted.reason === OPERATOR) {
    throw insufficientScope(
      'Bu abonelik operatör tarafından devre dışı bırakıldı; yalnızca operatör yeniden etkinleştirebilir.',
    );
  }
  if (await deps.db.$transaction((tx) => holdsTarget(tx, owner, counted.url))) throw targetHeld();
  const now = new Date();
  const message_id = `msg_${randomUUID().replaceAll('-', '')}`;
  const body = testEventBody(id, now);
  const secrets = signingSecrets(counted, now.getTime()).map((stored) => deps.secrets.open(stored));
  const headers = signedHeaders({ message_id, body, secrets }, now);
  // A sender of its own: nothing of a test is kept, its connection included.
  const sender = createSender({ timeoutMs: deps.timeoutMs, targets: deps.targets });
  try {
    const result = await sender.send(counted.url, body, headers);
    return {
      webhook_id: message_id,
      outcome: result.outcome,
      duration_ms: result.durationMs,
      ...testAnswer(result),
    };
  } finally {
    sender.close();
  }
}
