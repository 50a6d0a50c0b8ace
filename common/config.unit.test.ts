import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEVELOPMENT_SECRETS_KEY, loadConfig } from './config.js';

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
      metrics: { port: 9464, workerPort: 9465 },
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

describe('encrypted connections', () => {
  const readable = fileURLToPath(import.meta.url);
  const missing = '/nonexistent/authority.pem';

  it('when the URLs name readable authority files, then they are kept', () => {
    const config = loadConfig({
      DATABASE_URL: `postgresql://api@db.example/api?sslmode=verify-full&sslrootcert=${readable}`,
      LEGACY_DATABASE_URL: `mysql://sync@mysql.example/dashboard?ssl-mode=VERIFY_CA&ssl-ca=${readable}`,
      REDIS_URL: 'rediss://redis.example:6380',
      REDIS_CA_FILE: readable,
    });
    expect(config.db.url).toContain(`sslrootcert=${readable}`);
    expect(config.legacy.url).toContain(`ssl-ca=${readable}`);
    expect(config.redis.caFile).toBe(readable);
  });

  it('when an authority file cannot be read, then the configuration is refused naming the variable', () => {
    expect(() =>
      loadConfig({
        DATABASE_URL: `postgresql://api@db.example/api?sslmode=verify-full&sslrootcert=${missing}`,
        DATABASE_READ_URLS: `postgresql://api@replica.example/api?sslrootcert=${missing}`,
        LEGACY_DATABASE_URL: `mysql://sync@mysql.example/dashboard?ssl-ca=${missing}`,
        REDIS_URL: 'rediss://redis.example:6380',
        REDIS_CA_FILE: missing,
      }),
    ).toThrow(
      'invalid configuration: DATABASE_URL: sslrootcert names a file this process cannot read; DATABASE_READ_URLS.0: sslrootcert names a file this process cannot read; LEGACY_DATABASE_URL: ssl-ca names a file this process cannot read; REDIS_CA_FILE: not a file this process can read',
    );
  });

  it('when LEGACY_DATABASE_URL asks for encryption without verification, then the configuration is refused', () => {
    expect(() =>
      loadConfig({ LEGACY_DATABASE_URL: 'mysql://sync@mysql.example/dashboard?ssl-mode=REQUIRED' }),
    ).toThrow(
      'invalid configuration: LEGACY_DATABASE_URL: ssl-mode must be one of DISABLED, VERIFY_CA, VERIFY_IDENTITY (a connection is verified, or not encrypted)',
    );
  });

  it('when REDIS_CA_FILE is set for a plain redis:// URL, then the configuration is refused', () => {
    expect(() => loadConfig({ REDIS_CA_FILE: readable })).toThrow(
      'invalid configuration: REDIS_CA_FILE: only for a rediss:// (TLS) REDIS_URL',
    );
  });
});

describe('edge settings', () => {
  it('when CORS_ORIGINS and TRUST_PROXY are unset, then no origin is allowed and no proxy trusted', () => {
    expect(loadConfig({}).http).toMatchObject({ corsOrigins: [], trustProxy: false });
  });

  it('when CORS_ORIGINS lists origins, then each is kept', () => {
    const { http } = loadConfig({ CORS_ORIGINS: 'https://a.example.com, http://localhost:8080' });
    expect(http.corsOrigins).toEqual(['https://a.example.com', 'http://localhost:8080']);
  });

  it('when a CORS origin has a path or trailing slash, then the configuration is refused', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example.com/' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ CORS_ORIGINS: 'a.example.com' })).toThrow(/CORS_ORIGINS/);
  });

  it.each([
    ['1', 1],
    ['true', true],
    ['false', false],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
    ['loopback,::1', ['loopback', '::1']],
  ])('when TRUST_PROXY is %s, then Express receives %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).http.trustProxy).toEqual(expected);
  });

  it.each(['yes', '10.0.0.0/99', 'proxy.example.com'])(
    'when TRUST_PROXY is %s, then the configuration is refused',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
    },
  );

  it('when the request bounds are unset, then a head has 10 s and a whole request 30 s', () => {
    expect(loadConfig({}).http).toMatchObject({ headersTimeoutMs: 10000, requestTimeoutMs: 30000 });
  });

  it('when HTTP_HEADERS_TIMEOUT_MS exceeds HTTP_REQUEST_TIMEOUT_MS, then the configuration is refused', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });
});

describe('SECRETS_KEY', () => {
  const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');

  it('when it lists keys, then each is kept in order: the first signs, every one verifies', () => {
    expect(loadConfig({ SECRETS_KEY: `${key(1)}, ${key(2)}` }).secrets).toEqual({
      keys: [key(1), key(2)],
      development: false,
    });
  });

  it.each(['short', Buffer.alloc(16).toString('base64'), `${key(1)},nope`, ','])(
    'when it is %s, then the configuration is refused naming it',
    (value) => {
      expect(() => loadConfig({ SECRETS_KEY: value })).toThrow(/SECRETS_KEY/);
    },
  );

  it('when it is unset outside production, then the public development key is used, and said so', () => {
    expect(loadConfig({}).secrets).toEqual({ keys: [DEVELOPMENT_SECRETS_KEY], development: true });
  });

  it('when it is unset in production, then a process that signs refuses to start, naming it on one line', () => {
    const production = { NODE_ENV: 'production', PORT: 'abc' };
    expect(() => loadConfig(production, { needsSecretsKey: true })).toThrow(
      /^invalid configuration: PORT: .*; SECRETS_KEY: required in production[^\n]*$/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production' }, { needsSecretsKey: true })).toThrow(
      ConfigError,
    );
    // Never the development key: the tools that sign nothing just get none.
    expect(loadConfig({ NODE_ENV: 'production' }).secrets).toEqual({
      keys: [],
      development: false,
    });
    const set = loadConfig(
      { NODE_ENV: 'production', SECRETS_KEY: key(3) },
      { needsSecretsKey: true },
    );
    expect(set.secrets.keys).toEqual([key(3)]);
  });
});

describe('SECRETS_KEY in production, and from a file', () => {
  const key = Buffer.alloc(32, 9).toString('base64');
  const COMPOSE_KEY = 'ZG9ja2VyLWNvbXBvc2UgZGVtbyBrZXksIHB1YmxpYyE=';

  it.each([
    ['the development (and demo) key', DEVELOPMENT_SECRETS_KEY],
    ["docker-compose.yml's former key", COMPOSE_KEY],
    ['a list holding one of them', `${key},${COMPOSE_KEY}`],
  ])(
    'when it is %s, then production refuses it naming SECRETS_KEY; elsewhere it is taken',
    (_, value) => {
      expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY: value })).toThrow(
        /SECRETS_KEY: a published key/,
      );
      expect(loadConfig({ SECRETS_KEY: value }).secrets.keys).toContain(value.split(',').at(-1));
    },
  );

  it('when SECRETS_KEY_FILE names a file, then its key is used; unreadable, or beside SECRETS_KEY, it is refused naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secrets-key-'));
    const file = join(dir, 'key');
    writeFileSync(file, `${key}\n`);
    expect(
      loadConfig({ NODE_ENV: 'production', SECRETS_KEY_FILE: file }, { needsSecretsKey: true })
        .secrets,
    ).toEqual({ keys: [key], development: false });
    expect(() => loadConfig({ SECRETS_KEY_FILE: join(dir, 'none') })).toThrow(
      /SECRETS_KEY_FILE: not a file this process can read/,
    );
    expect(() => loadConfig({ SECRETS_KEY_FILE: file, SECRETS_KEY: key })).toThrow(
      /SECRETS_KEY_FILE: set SECRETS_KEY or SECRETS_KEY_FILE, not both/,
    );
    writeFileSync(file, DEVELOPMENT_SECRETS_KEY);
    expect(() => loadConfig({ NODE_ENV: 'production', SECRETS_KEY_FILE: file })).toThrow(
      /SECRETS_KEY: a published key/,
    );
  });
});

describe('WEBHOOK_RETENTION_DAYS', () => {
  it('when it is unset, then finished webhook events are kept 30 days; a fraction of a day is taken', () => {
    expect(loadConfig({}).webhooks.retentionMs).toBe(30 * 86_400_000);
    expect(loadConfig({ WEBHOOK_RETENTION_DAYS: '0.001' }).webhooks.retentionMs).toBe(86_400);
  });

  it.each(['0', '-1', 'forever'])(
    'when it is %s, then the configuration is refused naming it',
    (value) => {
      expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: value })).toThrow(/WEBHOOK_RETENTION_DAYS/);
    },
  );
});

describe('CONSOLE_OIDC_*', () => {
  const oidc = {
    CONSOLE_OIDC_ISSUER: 'https://id.example.com',
    CONSOLE_OIDC_CLIENT_ID: 'console',
    CONSOLE_OIDC_CLIENT_SECRET: 'secret',
    CONSOLE_OIDC_ALLOWED: 'Ops@Club.example, @branch.example',
    PUBLIC_BASE_URL: 'https://api.example.com',
  };

  it('when none is set, then operators sign in by link only', () => {
    expect(loadConfig({}).console.oidc).toBeNull();
  });

  it('when all four are set, then the provider is used, and addresses are kept in lower case', () => {
    expect(loadConfig(oidc).console.oidc).toEqual({
      issuer: 'https://id.example.com',
      clientId: 'console',
      clientSecret: 'secret',
      allowed: ['ops@club.example', '@branch.example'],
      allowedSubs: [],
    });
    expect(
      loadConfig({ ...oidc, CONSOLE_OIDC_ALLOWED_SUBS: 'a1, b2' }).console.oidc?.allowedSubs,
    ).toEqual(['a1', 'b2']);
  });

  it('when PUBLIC_BASE_URL is unset, then the configuration is refused naming it: the redirect URI is made from it', () => {
    expect(() => loadConfig({ ...oidc, PUBLIC_BASE_URL: '' })).toThrow(
      /PUBLIC_BASE_URL: required with CONSOLE_OIDC_ISSUER/,
    );
  });

  it('when only some are set, an issuer is plain http elsewhere than this host, or ALLOWED is no address, then the configuration is refused', () => {
    expect(() => loadConfig({ ...oidc, CONSOLE_OIDC_CLIENT_SECRET: '' })).toThrow(
      /CONSOLE_OIDC_ISSUER: set all of/,
    );
    expect(() => loadConfig({ ...oidc, CONSOLE_OIDC_ISSUER: 'http://id.example.com' })).toThrow(
      /CONSOLE_OIDC_ISSUER: an https URL/,
    );
    expect(
      loadConfig({ ...oidc, CONSOLE_OIDC_ISSUER: 'http://127.0.0.1:4000' }).console.oidc,
    ).not.toBeNull();
    expect(() => loadConfig({ ...oidc, CONSOLE_OIDC_ALLOWED: 'ops, club' })).toThrow(
      /CONSOLE_OIDC_ALLOWED: comma-separated e-mail addresses/,
    );
  });
});
