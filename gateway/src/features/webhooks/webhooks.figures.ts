// A subscription's delivery ledger, as GET /webhooks/{id} and npm run webhooks show it:
// events published = delivered + failed + pending + cancelled, tries by outcome, the last success
// and failure.
import type { ReadModelClient } from '#common/databases.js';
import type { EventStatus } from '#api/webhooks/vocabulary.js';

export interface DeliveryFigures {
  /** Every status counted: published is their sum. */
  events: { published: number } & Record<EventStatus, number>;
  attempts: Record<string, number>;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_failure_reason: string | null;
  oldest_pending_at: string | null;
}

const iso = (value: Date | null | undefined) => (value ? value.toISOString() : null);

export async function deliveryFigures(db: ReadModelClient, id: number): Promise<DeliveryFigures> {
  const [events, attempts, lastSuccess, lastFailure] = await Promise.all([
    db.webhookEvent.groupBy({
      by: ['status'],
      where: { subscription_id: id },
      _count: { _all: true },
      _min: { created_at: true },
    }),
    db.webhookAttempt.groupBy({
      by: ['outcome'],
      where: { subscription_id: id },
      _count: { _all: true },
    }),
    db.webhookAttempt.findFirst({
      where: { subscription_id: id, outcome: 'delivered' },
      orderBy: { attempted_at: 'desc' },
      select: { attempted_at: true },
    }),
    db.webhookAttempt.findFirst({
      where: { subscription_id: id, outcome: { not: 'delivered' } },
      orderBy: { attempted_at: 'desc' },
      select: { attempted_at: true, outcome: true, status_code: true, response: true },
    }),
  ]);
  const count = (status: EventStatus) =>
    events.find((group) => group.status === status)?._count._all ?? 0;
  const pending = events.find((group) => group.status === 'pending');
  return {
    events: {
      published: events.reduce((sum, group) => sum + group._count._all, 0),
      delivered: count('delivered'),
      failed: count('failed'),
      pending: count('pending'),
      cancelled: count('cancelled'),
    },
    attempts: Object.fromEntries(attempts.map((group) => [group.outcome, group._count._all])),
    last_success_at: iso(lastSuccess?.attempted_at),
    last_failure_at: iso(lastFailure?.attempted_at),
    last_failure_reason: lastFailure
      ? [lastFailure.outcome, lastFailure.status_code, lastFailure.response?.slice(0, 200)]
          .filter((part) => part !== null && part !== undefined && part !== '')
          .join(' ')
      : null,
    oldest_pending_at: iso(pending?._min.created_at),
  };
}
