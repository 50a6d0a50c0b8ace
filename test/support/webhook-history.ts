// A webhook event with its delivery tries, written straight into the read model as the worker
// would have recorded them: what the operator's views of deliveries read.
import type { EventStatus } from '#api/webhooks/vocabulary.js';
import type { ReadModelClient } from '#common/databases.js';

export interface RecordedTry {
  outcome: string;
  status_code: number | null;
  response: string | null;
}

/** One event with its tries, oldest first, a second apart from `at`. */
export async function recordWebhookEvent(
  db: ReadModelClient,
  subscriptionId: number,
  status: EventStatus,
  tries: RecordedTry[],
  at: Date,
) {
  const event = await db.webhookEvent.create({
    data: {
      subscription_id: subscriptionId,
      event_type: 'members.upsert',
      body: '{}',
      changed_at: at,
      status,
      attempts: tries.length,
    },
  });
  for (const [n, attempt] of tries.entries()) {
    await db.webhookAttempt.create({
      data: {
        event_id: event.id,
        subscription_id: subscriptionId,
        attempted_at: new Date(at.getTime() + n * 1000),
        duration_ms: 40 + n,
        ...attempt,
      },
    });
  }
  return event;
}
