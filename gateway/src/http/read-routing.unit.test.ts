// The read-routing policy alone: which replica takes the next read.
import { describe, expect, it } from 'vitest';
import { lsnKey, nextReplica, usable } from './read-routing.js';

const NOW = 1_000_000;
const MAX_LAG_MS = 5000;
const well = (name: string, replayed = lsnKey('1/0')) => ({
  name,
  down: false,
  probedAt: NOW - 100,
  lagMs: 0,
  replayed,
});

describe('nextReplica', () => {
  it('when replicas are usable, then reads go to each in turn', () => {
    const replicas = [well('a'), well('b'), well('c')];
    const turn = { next: 0 };
    const names = Array.from(
      { length: 6 },
      () => nextReplica(replicas, turn, '', MAX_LAG_MS, NOW)?.name,
    );
    expect(names).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('when one is down, too far behind or not probed lately, then it is passed over', () => {
    const replicas = [
      { ...well('down'), down: true },
      { ...well('behind'), lagMs: MAX_LAG_MS + 1 },
      { ...well('silent'), probedAt: NOW - 2000 },
      well('ok'),
    ];
    const turn = { next: 0 };
    expect(nextReplica(replicas, turn, '', MAX_LAG_MS, NOW)?.name).toBe('ok');
    expect(nextReplica(replicas, turn, '', MAX_LAG_MS, NOW)?.name).toBe('ok');
    expect(replicas.map((r) => usable(r, NOW, MAX_LAG_MS))).toEqual([false, false, false, true]);
  });

  it("when a replica has not replayed the caller's last write, then it is passed over, and without one that has, the primary reads", () => {
    const replicas = [well('old', lsnKey('1/0')), well('new', lsnKey('2/0'))];
    const turn = { next: 0 };
    expect(nextReplica(replicas, turn, lsnKey('1/FF'), MAX_LAG_MS, NOW)?.name).toBe('new');
    expect(nextReplica(replicas, turn, lsnKey('3/0'), MAX_LAG_MS, NOW)).toBeNull();
  });

  it('when Redis could not tell what the caller last wrote, then the primary reads', () => {
    expect(nextReplica([well('a')], { next: 0 }, null, MAX_LAG_MS, NOW)).toBeNull();
  });
});

describe('lsnKey', () => {
  it('when positions are compared as text, then they order as WAL positions', () => {
    expect(lsnKey('9/FFFFFFFF') < lsnKey('A/0')).toBe(true);
    expect(lsnKey('16/B374D848')).toBe('00000016B374D848');
  });
});
