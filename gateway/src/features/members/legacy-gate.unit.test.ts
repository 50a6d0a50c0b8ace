import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createLegacyGate } from './legacy-gate.js';

describe('the legacy gate', () => {
  it('when writes of one branch arrive together, then at most two run at once and they start in arrival order', async () => {
    const gate = createLegacyGate();
    const events: string[] = [];
    const write = (name: string, ms: number) => async () => {
      events.push(`start ${name}`);
      await sleep(ms);
      events.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      gate.run(1, write('a', 30)),
      gate.run(1, write('b', 10)),
      gate.run(1, write('c', 1)),
      gate.run(1, write('d', 1)),
      gate.run(2, write('e', 1)),
    ]);
    expect(results).toEqual(['a', 'b', 'c', 'd', 'e']);
    let running = 0;
    let most = 0;
    for (const event of events.filter((e) => !e.endsWith(' e'))) {
      running += event.startsWith('start') ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBe(2);
    const starts = events.filter((e) => e.startsWith('start') && e !== 'start e');
    expect(starts).toEqual(['start a', 'start b', 'start c', 'start d']);
    // c waits for a place: it starts once b ends, d once c ends; a runs on throughout.
    expect(events.indexOf('end b')).toBeLessThan(events.indexOf('start c'));
    expect(events.indexOf('end c')).toBeLessThan(events.indexOf('start d'));
    expect(events.indexOf('end d')).toBeLessThan(events.indexOf('end a'));
    // Another branch never waits for this one.
    expect(events.indexOf('end e')).toBeLessThan(events.indexOf('end b'));
  });

  it('when a queued write fails, then the next one of its branch still runs', async () => {
    const gate = createLegacyGate();
    const failing = gate.run(1, () => Promise.reject(new Error('boom')));
    const next = gate.run(1, () => Promise.resolve('ok'));
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });

  it('when MySQL was found unreachable, then writes are refused at once with 503 for a moment', async () => {
    const gate = createLegacyGate();
    gate.markDown();
    await expect(gate.run(null, () => Promise.resolve('x'))).rejects.toMatchObject({
      status: 503,
      retryAfter: 2,
    });
  });
});
