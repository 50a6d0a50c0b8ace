import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { throttledLog } from './log-throttle.js';
import { createLogger } from './logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', name: 't', destination }) };
}

describe('throttledLog', () => {
  it('when one kind of failure repeats, then it is logged once per interval with the count held back', () => {
    vi.useFakeTimers();
    try {
      const { lines, logger } = capture();
      const log = throttledLog(logger, 10_000);
      for (let i = 0; i < 50; i++) log('warn', 'redis', { err: new Error('down') }, 'redis error');
      log('warn', 'other', {}, 'another kind');
      vi.advanceTimersByTime(10_001);
      log('warn', 'redis', {}, 'redis error');
      expect(lines.map((l) => [l.msg, l.suppressed])).toEqual([
        ['redis error', 0],
        ['another kind', 0],
        ['redis error', 49],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
