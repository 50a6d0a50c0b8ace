import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createLegacyGate } from './legacy-gate.js';

describe('the legacy gate', () => {
  it('when writes of one branch arrive together, then they run one at a time in arrival order', async () => {
    const gate = createLegacyGate();
    const events: string[] = [];
    const write = (name: string, ms: number) => async () => {
      events.push(`start ${name}`);
      await sleep(ms);
      events.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      gate.run(1, write('a', 20)),
      gate.run(1, write('b', 1)),
      gate.run(2, write('c', 1)),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(events.indexOf('end a')).toBeLessThan(events.indexOf('start b'));
    expect(events.indexOf('end c')).toBeLessThan(events.indexOf('end a'));
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
