import { describe, expect, it } from 'vitest';
import {
  cellFields,
  cellsOf,
  LATENCY_BUCKETS,
  latencyBucketOf,
  latencyPercentile,
  type UsageCell,
} from './usage-cells.js';

const buckets = (entries: Record<number, number>) => {
  const counts = new Array<number>(LATENCY_BUCKETS).fill(0);
  for (const [bucket, n] of Object.entries(entries)) counts[Number(bucket)] = n;
  return counts;
};

describe('latency buckets', () => {
  it('when a latency is on a bound, then it is in the bucket that bound closes', () => {
    expect(latencyBucketOf(0)).toBe(0);
    expect(latencyBucketOf(0.2)).toBe(1);
    expect(latencyBucketOf(5)).toBe(1);
    expect(latencyBucketOf(5.01)).toBe(2);
    expect(latencyBucketOf(10000)).toBe(14);
    expect(latencyBucketOf(10000.5)).toBe(15);
  });

  it('when percentiles are read off buckets, then they interpolate within the bucket', () => {
    // 100 requests: 50 in (5,10], 45 in (10,25], 5 in (250,500].
    const counts = buckets({ 2: 50, 3: 45, 8: 5 });
    expect(latencyPercentile(counts, 0.5)).toBe(10);
    expect(latencyPercentile(counts, 0.95)).toBe(25);
    expect(latencyPercentile(counts, 0.99)).toBe(450);
    expect(latencyPercentile(buckets({ 15: 3 }), 0.5)).toBe(10000);
    expect(latencyPercentile(buckets({}), 0.5)).toBeNull();
  });
});

describe('hash fields', () => {
  it('when cells are written as fields and read back, then every counter is the same', () => {
    const cell: UsageCell = {
      hour: Date.UTC(2026, 10, 26, 17),
      clientId: 4,
      operation: 'GET /api/v1/members/{id}|odd',
      status: 429,
      requests: 7,
      bytesOut: 1234,
      latency: buckets({ 1: 5, 15: 2 }),
    };
    const hash = Object.fromEntries(cellFields(cell).map(([f, n]) => [f, String(n)]));
    expect(cellsOf({ ...hash, 'not ours': '9' })).toEqual([cell]);
  });
});
