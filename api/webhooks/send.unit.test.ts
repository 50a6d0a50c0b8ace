import { describe, expect, it } from 'vitest';
import { failureWords } from './send.js';

describe('failureWords', () => {
  it('when a try got no answer, then it is told in fixed words by its error code', () => {
    const network = (errorCode: string) => failureWords({ outcome: 'network_error', errorCode });
    expect(network('ECONNREFUSED')).toBe('connection refused');
    expect(network('ENOTFOUND')).toBe('name not resolved');
    expect(network('ETIMEOUT')).toBe('name not resolved');
    expect(network('ECONNRESET')).toBe('connection failed');
    expect(failureWords({ outcome: 'network_error' })).toBe('connection failed');
    expect(failureWords({ outcome: 'timeout' })).toBe('timed out');
    expect(failureWords({ outcome: 'refused_target' })).toBe('target not allowed');
  });

  it('when a try got an HTTP answer, then there are no failure words', () => {
    for (const outcome of ['delivered', 'http_error', 'redirect', 'gone'] as const) {
      expect(failureWords({ outcome })).toBeNull();
    }
  });
});
