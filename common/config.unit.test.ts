import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('when nothing is set, then the defaults of the operator table apply', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      http: { port: 3000 },
      db: { url: 'postgresql://postgres@127.0.0.1:5432/dashboard_api' },
      legacy: { url: 'mysql://root@127.0.0.1:3306/dashboard' },
      redis: { url: 'redis://127.0.0.1:6379', prefix: 'dash' },
      tokens: { accessTtlSeconds: 7200, refreshTtlSeconds: 2592000 },
      rateLimit: { perMinute: 60, perHour: 1000, perDay: 10000 },
      sync: { intervalMs: 1000, reconcileIntervalMs: 60000 },
      metrics: { workerPort: 9464 },
    });
    expect(Object.isFrozen(config.http)).toBe(true);
  });

  it('when values are given, then they are parsed into numbers', () => {
    expect(loadConfig({ PORT: '8080', RATE_LIMIT_PER_MINUTE: '5' })).toMatchObject({
      http: { port: 8080 },
      rateLimit: { perMinute: 5 },
    });
  });

  it('when values are bad, then one error names every bad variable on one line', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', SYNC_INTERVAL_MS: '-1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(/PORT/);
    expect(message).toMatch(/DATABASE_URL/);
    expect(message).toMatch(/SYNC_INTERVAL_MS/);
  });
});
