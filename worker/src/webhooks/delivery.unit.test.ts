// The delivery policy alone: what a try's answer means, which subscriptions' state it changes,
// which tries turned away are queued again, and the jobs tries are queued in.
import { describe, expect, it } from 'vitest';
import type { TryResult } from '#api/webhooks/send.js';
import type { DeliveryOutcome } from '#api/webhooks/vocabulary.js';
import { FAILING_DISABLE_MS, judge, requeued, subscriptionChanges } from './delivery/policy.js';
import { deliverJobs } from './delivery/queue.js';

const SCHEDULE = [5000, 300_000];
const NOW = Date.parse('2026-11-25T10:00:00Z');

const answer = (outcome: DeliveryOutcome, statusCode: number | null = null): TryResult => ({
  outcome,
  statusCode,
  durationMs: 10,
  response: null,
  retryAfter: undefined,
});
const fresh = { attempts: 0, failing_since: null };
const failingFor = (ms: number) => ({ attempts: 1, failing_since: new Date(NOW - ms) });

describe('judge', () => {
  it('when a try is delivered, then its event is delivered with no next try', () => {
    expect(judge(SCHEDULE, failingFor(FAILING_DISABLE_MS), answer('delivered', 200), NOW)).toEqual({
      attempts: 2,
      disable: null,
      status: 'delivered',
      delayMs: null,
    });
  });
  it('when a try fails within the schedule, then the next follows its step; a timeout waits 60 s', () => {
    const failed = judge(SCHEDULE, fresh, answer('http_error', 500), NOW);
    expect(failed).toMatchObject({ attempts: 1, disable: null, status: 'pending' });
    expect(failed.delayMs).toBeGreaterThanOrEqual(4000);
    expect(failed.delayMs).toBeLessThanOrEqual(6000);
    expect(judge(SCHEDULE, fresh, answer('timeout'), NOW).delayMs).toBe(60_000);
  });
  it('when the schedule is spent, then the event has failed', () => {
    expect(judge(SCHEDULE, { attempts: 2, failing_since: null }, answer('timeout'), NOW)).toEqual({
      attempts: 3,
      disable: null,
      status: 'failed',
      delayMs: null,
    });
  });
  it('when the target is gone, or has failed for five days, then its subscription is disabled', () => {
    expect(judge(SCHEDULE, fresh, answer('gone', 410), NOW)).toEqual({
      attempts: 1,
      disable: 'gone',
      status: 'pending',
      delayMs: null,
    });
    expect(judge(SCHEDULE, failingFor(FAILING_DISABLE_MS), answer('http_error', 500), NOW)).toEqual(
      { attempts: 2, disable: 'failing', status: 'pending', delayMs: null },
    );
    expect(
      judge(SCHEDULE, failingFor(FAILING_DISABLE_MS - 1), answer('http_error', 500), NOW).disable,
    ).toBeNull();
  });
});

describe('subscriptionChanges', () => {
  const tried = (
    subscriptionId: number,
    failingSince: Date | null,
    outcome: DeliveryOutcome,
    disable: 'gone' | null = null,
  ) => ({
    event: { subscription_id: subscriptionId, failing_since: failingSince },
    result: { outcome },
    disable,
  });
  it('when tries change a subscription’s state, then the last of each decides; no change, no write', () => {
    const since = new Date(NOW);
    expect(
      subscriptionChanges([
        tried(1, null, 'delivered'),
        tried(1, null, 'http_error'),
        tried(2, since, 'http_error'),
        tried(2, since, 'delivered'),
        tried(3, null, 'delivered'),
        tried(4, since, 'http_error'),
        tried(5, null, 'gone', 'gone'),
      ]),
    ).toEqual([
      { id: 1, delivered: false, disable: null },
      { id: 2, delivered: true, disable: null },
      { id: 5, delivered: false, disable: 'gone' },
    ]);
  });
});

describe('requeued', () => {
  it('when tries are turned away, then those waiting for room are queued for then, a back-off’s are not', () => {
    expect(
      requeued(
        [
          { event: { id: '7', attempts: 1 }, away: { waitUntil: NOW + 250 } },
          { event: { id: '8', attempts: 0 }, away: { deferUntil: NOW + 60_000 } },
          { event: { id: '9', attempts: 0 }, away: { waitUntil: NOW - 5 } },
        ],
        NOW,
      ),
    ).toEqual([
      { id: '7', attempt: 2, delayMs: 250, waitUntil: NOW + 250 },
      { id: '9', attempt: 1, delayMs: 1, waitUntil: NOW - 5 },
    ]);
  });
});

describe('deliverJobs', () => {
  it('when first tries come as a batch, then they go in jobs of 50 named by the first and count', () => {
    const tries = Array.from({ length: 120 }, (_, i) => ({ id: String(i + 1), attempt: 1 }));
    const jobs = deliverJobs(tries, { batch: true });
    expect(jobs.map((j) => [j.jobId, j.ids.length, j.delay])).toEqual([
      ['b1-50', 50, 0],
      ['b51-50', 50, 0],
      ['b101-20', 20, 0],
    ]);
  });
  it('when tries come one by one, then each has its try’s job; one turned away a job of its own', () => {
    expect(
      deliverJobs(
        [
          { id: '7', attempt: 2, delayMs: 5000 },
          { id: '7', attempt: 2, delayMs: 250, waitUntil: 1000 },
          { id: '8', attempt: 1 },
        ],
        {},
      ),
    ).toEqual([
      { ids: ['7'], jobId: 'e7-a2', delay: 5000 },
      { ids: ['7'], jobId: 'e7-a2-w1000', delay: 250 },
      { ids: ['8'], jobId: 'e8-a1', delay: 0 },
    ]);
  });
});
