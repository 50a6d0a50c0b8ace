// The only reader of process.env. Every operator variable is validated here, once, at start.
import { accessSync, constants, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { legacyTlsProblem } from './legacy-tls.js';
import { clusterSeedsOf } from './redis.js';

/** Where the worker learns of legacy changes (SYNC_SOURCE). */
export const SYNC_SOURCES = ['poll', 'binlog'] as const;
export type SyncSource = (typeof SYNC_SOURCES)[number];

const positiveInt = z.coerce.number().int().positive();
const url = (protocols: string[]) =>
  z
    .string()
    .url()
    .refine((value) => protocols.some((p) => value.startsWith(`${p}://`)), {
      message: `expected a ${protocols.join(' or ')} URL`,
    });

const isReadableFile = (file: string) => {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
};
/**
 * A PostgreSQL URL; its TLS settings are libpq's parameters, which pg reads from it (`sslmode`,
 * `sslrootcert` naming the authority's certificate file, read when a connection opens).
 */
const postgresUrl = url(['postgresql', 'postgres']).refine(
  (value) => {
    const authority = new URL(value).searchParams.get('sslrootcert');
    return authority === null || isReadableFile(authority);
  },
  { message: 'sslrootcert names a file this process cannot read' },
);

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/** An origin as browsers send it: scheme, host and port only ("https://shop.example.com"). */
const isOrigin = (value: string) => {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
};
const corsOrigins = z
  .string()
  .transform(list)
  .refine((origins) => origins.every(isOrigin), {
    message: 'comma-separated origins such as https://shop.example.com (no path, no trailing /)',
  });

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** An issuer over https, or http on this host only (a provider a test starts). */
const isOidcIssuer = (value: string) => {
  try {
    const { protocol, hostname } = new URL(value);
    return protocol === 'https:' || (protocol === 'http:' && LOOPBACK_HOSTS.has(hostname));
  } catch {
    return false;
  }
};
/** `someone@example.com` or `@example.com`. */
const isAllowedEmail = (value: string) => /^[^@\s,]*@[^@\s,]+\.[^@\s,]+$/.test(value);

const isRedisUrl = (value: string) => {
  try {
    const seeds = clusterSeedsOf(value);
    if (seeds) return seeds.nodes.length > 0;
    return ['redis:', 'rediss:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const isProxyAddress = (value: string) => {
  const [address = '', bits, ...rest] = value.split('/');
  if (rest.length > 0) return false;
  if (PROXY_NAMES.has(value)) return true;
  const family = isIP(address);
  if (family === 0) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};
/** Express's "trust proxy": a hop count, true/false, or addresses and subnets to trust. */
const trustProxy = z.string().transform((value, ctx): boolean | number | string[] => {
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^\d+$/.test(value)) return Number(value);
  const addresses = list(value);
  if (addresses.length > 0 && addresses.every(isProxyAddress)) return addresses;
  ctx.addIssue({
    code: 'custom',
    message: 'a hop count, true, false, or comma-separated addresses/subnets (e.g. 10.0.0.0/8)',
  });
  return z.NEVER;
});

/**
 * The key used when SECRETS_KEY is unset outside production (demo, tests, development): public,
 * so whatever it signs can be forged; production never falls back to it.
 */
export const DEVELOPMENT_SECRETS_KEY = Buffer.from('INSECURE-DEVELOPMENT-SECRETS-KEY').toString(
  'base64',
);
/**
 * Keys that are public: the development fallback (also the demo's), and the one an earlier
 * docker-compose.yml set for every service. Whatever they sign or encrypt anyone can forge or
 * read, so production refuses them.
 */
const PUBLISHED_SECRETS_KEYS = new Set([
  DEVELOPMENT_SECRETS_KEY,
  'ZG9ja2VyLWNvbXBvc2UgZGVtbyBrZXksIHB1YmxpYyE=',
]);
const isSecretsKey = (value: string) =>
  /^[A-Za-z0-9+/]{43}=?$/.test(value) && Buffer.from(value, 'base64').length === 32;
const secretsKeys = z
  .string()
  .transform(list)
  .refine((keys) => keys.length > 0 && keys.every(isSecretsKey), {
    message: 'comma-separated keys of 32 bytes in base64 (openssl rand -base64 32)',
  });

const envSchema = z.object({
  // Only `production` matters here: there SECRETS_KEY has no default.
  NODE_ENV: z.string().optional(),
  // The first key signs (and will encrypt), every one verifies: a list rotates keys. Or read from
  // the file SECRETS_KEY_FILE names (loadConfig).
  SECRETS_KEY: secretsKeys.optional(),
  SECRETS_KEY_FILE: z.string().optional(),
  DATABASE_URL: postgresUrl.default('postgresql://postgres@127.0.0.1:5432/dashboard_api'),
  // Read replicas of DATABASE_URL for the gateway's reads; none by default.
  DATABASE_READ_URLS: z.string().transform(list).pipe(z.array(postgresUrl)).default([]),
  READ_REPLICA_MAX_LAG_MS: positiveInt.default(5000),
  LEGACY_DATABASE_URL: url(['mysql', 'mariadb'])
    .superRefine((value, ctx) => {
      const problem = legacyTlsProblem(value);
      const authority = new URL(value).searchParams.get('ssl-ca');
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
      if (authority !== null && !isReadableFile(authority)) {
        ctx.addIssue({ code: 'custom', message: 'ssl-ca names a file this process cannot read' });
      }
    })
    .default('mysql://root@127.0.0.1:3306/dashboard'),
  // One server (redis://, rediss://) or the seed nodes of a Redis Cluster
  // (redis+cluster://a:p,b:p).
  REDIS_URL: z
    .string()
    .refine(isRedisUrl, {
      message: 'expected a redis://, rediss:// or redis+cluster://host:port[,host:port...] URL',
    })
    .default('redis://127.0.0.1:6379'),
  // The authority that signed a rediss:// server's certificate (PEM); the system's by default.
  REDIS_CA_FILE: z.string().refine(isReadableFile, 'not a file this process can read').optional(),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default('dash'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  ACCESS_TOKEN_TTL_SECONDS: positiveInt.default(7200),
  REFRESH_TOKEN_TTL_SECONDS: positiveInt.default(2592000),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(60),
  RATE_LIMIT_PER_HOUR: positiveInt.default(1000),
  RATE_LIMIT_PER_DAY: positiveInt.default(10000),
  RATE_LIMIT_REDIS_FAILURE: z.enum(['open', 'closed']).default('open'),
  AUTH_FAILED_ATTEMPTS_PER_MINUTE: positiveInt.default(10),
  // Successful token and refresh calls per client and minute.
  TOKEN_ISSUE_PER_MINUTE: positiveInt.default(60),
  // Days from the token request that began a refresh chain to its last refresh.
  REFRESH_CHAIN_MAX_DAYS: z.coerce.number().positive().max(3650).default(90),
  // Days an expired or revoked token row is kept; fractions allowed (tests use minutes).
  TOKEN_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(7),
  // Days a member write's audit record is kept; fractions allowed.
  AUDIT_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(400),
  TOKEN_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  SYNC_INTERVAL_MS: positiveInt.default(1000),
  RECONCILE_INTERVAL_MS: positiveInt.default(60000),
  // Where the worker learns of legacy changes: polling by change time, or the binary log with
  // polling kept as a slow safety net (docs/decisions/0016).
  SYNC_SOURCE: z.enum(SYNC_SOURCES).default('poll'),
  CORS_ORIGINS: corsOrigins.default([]),
  TRUST_PROXY: trustProxy.default(false),
  // Unset: 9464 for the gateway, 9465 for the worker, so both run side by side on one host.
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10000),
  // Bounds on receiving one request: its head, and the whole of it (head and body).
  HTTP_HEADERS_TIMEOUT_MS: positiveInt.default(10000),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.default(30000),
  HTTP_MAX_CONNECTIONS: positiveInt.default(1000),
  DB_QUERY_TIMEOUT_MS: positiveInt.default(1500),
  DB_CONNECT_TIMEOUT_MS: positiveInt.default(1000),
  SYNC_QUERY_TIMEOUT_MS: positiveInt.default(30000),
  REDIS_COMMAND_TIMEOUT_MS: positiveInt.default(500),
  SYNC_STALE_AFTER_INTERVALS: positiveInt.default(30),
  // Days; fractions allowed (a test keeps deletes for seconds).
  CHANGES_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(30),
  // What a worker process runs: the sync, webhook delivery, or both (several processes may run
  // each).
  WORKER_ROLES: z
    .string()
    .transform(list)
    .pipe(z.array(z.enum(['sync', 'webhooks'])).min(1))
    .default(['sync', 'webhooks']),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(15000),
  // Seconds from one failed try to the next, each ±20 %; the last failure fails the event.
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'comma-separated seconds, e.g. 5,300,1800')
    .transform((value) => value.split(',').map(Number))
    .default([5, 300, 1800, 7200, 18000, 36000, 36000]),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).default('false'),
  // https only unless set (or private targets are allowed).
  WEBHOOK_ALLOW_HTTP: z.enum(['true', 'false']).default('false'),
  // How often the worker turns new changes into events, and how many deliveries run at once.
  WEBHOOK_DISPATCH_INTERVAL_MS: positiveInt.default(200),
  WEBHOOK_CONCURRENCY: positiveInt.default(100),
  // Of those, how many one subscription may hold: its share (decision 0012, fair delivery).
  WEBHOOK_SUBSCRIPTION_CONCURRENCY: positiveInt.default(10),
  // How long a subscription whose endpoint timed out sends nothing before one try probes it;
  // doubled after each probe that times out, up to 10 minutes (decision 0012, fair delivery).
  WEBHOOK_BACK_OFF_MS: positiveInt.default(60000),
  // What one client may ask of delivery: subscriptions held, events set back by one replay.
  WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT: positiveInt.default(10),
  WEBHOOK_REPLAY_MAX: positiveInt.default(10000),
  // Replays one subscription may ask for in an hour: each sets back up to WEBHOOK_REPLAY_MAX.
  WEBHOOK_REPLAYS_PER_HOUR: positiveInt.default(10),
  // Events those replays may set back to pending in the hour, together.
  WEBHOOK_REPLAY_EVENTS_PER_HOUR: positiveInt.default(20000),
  // Days a delivered, failed or cancelled event and its tries are kept; fractions allowed.
  WEBHOOK_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(30),
  // Usage reports: how often each gateway adds its counts to Redis, and each worker merges them
  // into PostgreSQL (a count is visible after at most both); days the hourly counts are kept.
  USAGE_FLUSH_INTERVAL_MS: positiveInt.default(1000),
  // `off`: no request is counted, no flush timer runs (the benchmark's reference for the cost).
  USAGE_COUNTING: z.enum(['on', 'off']).default('on'),
  // Off only to measure the recipients record's cost (bench/gateway): it is the club's answer to
  // "who received my data" (docs/decisions/0023-data-classes.md).
  RECIPIENTS_RECORDING: z.enum(['on', 'off']).default('on'),
  USAGE_MERGE_INTERVAL_MS: positiveInt.default(30000),
  USAGE_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(400),
  // The partners' sandbox (docs/decisions/0024-sandbox.md): a generated club in databases of its
  // own, by default the live ones' names with `_sandbox` added; `off`: no sandbox client works.
  SANDBOX: z.enum(['on', 'off']).default('on'),
  SANDBOX_DATABASE_URL: postgresUrl.optional(),
  SANDBOX_LEGACY_DATABASE_URL: url(['mysql', 'mariadb']).optional(),
  // The operator console at /console (docs/decisions/0019-console.md); `off` removes it.
  CONSOLE: z.enum(['on', 'off']).default('on'),
  // Where operators and partners reach the gateway: sign-in links are made under it.
  PUBLIC_BASE_URL: url(['http', 'https'])
    .refine(isOrigin, { message: 'an origin such as https://api.example.com (no path)' })
    .optional(),
  // A console session ends after this long without a request, and this long after sign-in.
  CONSOLE_SESSION_IDLE_MINUTES: z.coerce.number().positive().max(1440).default(30),
  CONSOLE_SESSION_MAX_HOURS: z.coerce.number().positive().max(24).default(8),
  // Operators sign in through this OpenID Connect provider too when all four are set; ALLOWED is
  // comma-separated e-mails and `@domain`s. Plain http only for a provider on this host (tests).
  CONSOLE_OIDC_ISSUER: z
    .string()
    .url()
    .refine(isOidcIssuer, { message: 'an https URL (http only for localhost or 127.0.0.1)' })
    .optional(),
  CONSOLE_OIDC_CLIENT_ID: z.string().optional(),
  CONSOLE_OIDC_CLIENT_SECRET: z.string().optional(),
  CONSOLE_OIDC_ALLOWED: z
    .string()
    .transform((value) => list(value).map((item) => item.toLowerCase()))
    .refine((items) => items.length > 0 && items.every(isAllowedEmail), {
      message: 'comma-separated e-mail addresses or @domain names',
    })
    .optional(),
  // Subjects (`sub`) whose e-mail address is taken unverified: for a provider that never marks
  // addresses verified. The address must still be allowed by CONSOLE_OIDC_ALLOWED.
  CONSOLE_OIDC_ALLOWED_SUBS: z.string().transform(list).default([]),
  // Requests one address may make to /console/oidc/* (start and callback) in a minute.
  CONSOLE_SIGN_IN_PER_MINUTE: positiveInt.default(20),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Whether an incoming traceparent is joined (true) or only linked to (common/tracing.ts reads
  // it at start, before this module loads; validated here all the same).
  OTEL_TRUST_INCOMING: z.enum(['true', 'false']).default('false'),
});

const OIDC_VARIABLES = [
  'CONSOLE_OIDC_ISSUER',
  'CONSOLE_OIDC_CLIENT_ID',
  'CONSOLE_OIDC_CLIENT_SECRET',
  'CONSOLE_OIDC_ALLOWED',
] as const;
// node refuses a head bound beyond the request's: the head is part of the request.
const checkedEnvSchema = envSchema
  .refine((env) => env.HTTP_HEADERS_TIMEOUT_MS <= env.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS',
  })
  .refine((env) => env.REDIS_CA_FILE === undefined || env.REDIS_URL.startsWith('rediss'), {
    path: ['REDIS_CA_FILE'],
    message: 'only for a rediss:// (TLS) REDIS_URL',
  })
  // Half a sign-in configuration would be a console that silently offers only links.
  .refine((env) => new Set(OIDC_VARIABLES.map((name) => env[name] === undefined)).size === 1, {
    path: ['CONSOLE_OIDC_ISSUER'],
    message: `set all of ${OIDC_VARIABLES.join(', ')} or none`,
  })
  // The provider's redirect URI is made from it, never from a request's Host header, which a
  // client chooses.
  .refine((env) => env.CONSOLE_OIDC_ISSUER === undefined || env.PUBLIC_BASE_URL !== undefined, {
    path: ['PUBLIC_BASE_URL'],
    message: 'required with CONSOLE_OIDC_ISSUER (the redirect URI is made from it)',
  })
  // Feed positions are the server's transaction ids: the sandbox's feed and the webhook
  // subscriptions that follow it (in the live database) must count them on one server.
  .refine(
    (env) =>
      env.SANDBOX_DATABASE_URL === undefined ||
      new URL(env.SANDBOX_DATABASE_URL).host === new URL(env.DATABASE_URL).host,
    {
      path: ['SANDBOX_DATABASE_URL'],
      message: "must be on DATABASE_URL's server (another database there)",
    },
  );

export type Config = ReturnType<typeof toConfig>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function toConfig(env: z.infer<typeof envSchema>) {
  return {
    http: {
      port: env.PORT,
      corsOrigins: env.CORS_ORIGINS,
      trustProxy: env.TRUST_PROXY,
      /** A request whose head, or whole, has not arrived within these is closed. */
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      /** Connections open at once; one more is closed on arrival. */
      maxConnections: env.HTTP_MAX_CONNECTIONS,
    },
    /** How long a stopping process waits for requests and jobs in flight before it exits. */
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    db: {
      url: env.DATABASE_URL,
      /** Bounds on the gateway's PostgreSQL: one query, one connection (or pool wait). */
      queryTimeoutMs: env.DB_QUERY_TIMEOUT_MS,
      connectTimeoutMs: env.DB_CONNECT_TIMEOUT_MS,
      /** Streaming replicas for the gateway's reads; tokens, writes and the feed stay above. */
      readUrls: env.DATABASE_READ_URLS,
      /** A replica further behind than this is skipped. */
      replicaMaxLagMs: env.READ_REPLICA_MAX_LAG_MS,
    },
    legacy: { url: env.LEGACY_DATABASE_URL },
    redis: {
      url: env.REDIS_URL,
      prefix: env.REDIS_PREFIX,
      /** The certificate authority a rediss:// server is verified against (a PEM file). */
      caFile: env.REDIS_CA_FILE,
      commandTimeoutMs: env.REDIS_COMMAND_TIMEOUT_MS,
    },
    tokens: tokensConfig(env),
    rateLimit: {
      perMinute: env.RATE_LIMIT_PER_MINUTE,
      perHour: env.RATE_LIMIT_PER_HOUR,
      perDay: env.RATE_LIMIT_PER_DAY,
      onRedisFailure: env.RATE_LIMIT_REDIS_FAILURE,
    },
    sync: {
      intervalMs: env.SYNC_INTERVAL_MS,
      reconcileIntervalMs: env.RECONCILE_INTERVAL_MS,
      /** poll, or binlog: the binary log followed, polling every 30 s as a safety net. */
      source: env.SYNC_SOURCE,
      /** The worker's bound on one query, on either database (its batches are larger). */
      queryTimeoutMs: env.SYNC_QUERY_TIMEOUT_MS,
      /** A table not brought up to date for this many sync intervals makes the worker unhealthy. */
      staleAfterIntervals: env.SYNC_STALE_AFTER_INTERVALS,
    },
    // Each process serves its metrics on METRICS_PORT; by default each on a port of its own.
    metrics: { port: env.METRICS_PORT ?? 9464, workerPort: env.METRICS_PORT ?? 9465 },
    /** How long the worker keeps a member write's audit record. */
    audit: { retentionMs: Math.round(env.AUDIT_RETENTION_DAYS * 86_400_000) },
    /** How long the change feed keeps deletes; an older cursor is 410 CURSOR_EXPIRED. */
    changes: { retentionMs: Math.round(env.CHANGES_RETENTION_DAYS * 86_400_000) },
    workerRoles: new Set(env.WORKER_ROLES),
    webhooks: webhooksConfig(env),
    /** False: nothing records who received whose data (for measuring its cost only). */
    recipientsRecording: env.RECIPIENTS_RECORDING === 'on',
    usage: {
      /** False: the gateway counts nothing, GET /usage and `npm run usage` report no new requests. */
      counting: env.USAGE_COUNTING === 'on',
      /** A gateway killed at once loses what it counted since its last flush. */
      flushIntervalMs: env.USAGE_FLUSH_INTERVAL_MS,
      mergeIntervalMs: env.USAGE_MERGE_INTERVAL_MS,
      /** How long an hour's counts are kept before the worker deletes them. */
      retentionMs: Math.round(env.USAGE_RETENTION_DAYS * 86_400_000),
    },
    console: consoleConfig(env),
    sandbox: sandboxConfig(env),
    logLevel: env.LOG_LEVEL,
    /**
     * SECRETS_KEY's keys, base64, the first signing; none in production when unset (a process
     * that needs them refuses to start, see loadConfig). `development`: the public fallback.
     */
    secrets: {
      keys: env.SECRETS_KEY ?? (env.NODE_ENV === 'production' ? [] : [DEVELOPMENT_SECRETS_KEY]),
      development: env.SECRETS_KEY === undefined && env.NODE_ENV !== 'production',
    },
  };
}

type Env = z.infer<typeof envSchema>;

function tokensConfig(env: Env) {
  return {
    accessTtlSeconds: env.ACCESS_TOKEN_TTL_SECONDS,
    refreshTtlSeconds: env.REFRESH_TOKEN_TTL_SECONDS,
    /**
     * Failed /auth/token, /auth/refresh and /oauth/token calls per IP, and per client_key and IP.
     */
    failedAttemptsPerMinute: env.AUTH_FAILED_ATTEMPTS_PER_MINUTE,
    /** Token pairs a client may obtain (token and refresh together) in a minute. */
    issuePerMinute: env.TOKEN_ISSUE_PER_MINUTE,
    /** The longest a refresh chain lives, from the token request that began it. */
    chainMaxMs: Math.round(env.REFRESH_CHAIN_MAX_DAYS * 86_400_000),
    /** How long expired and revoked token rows are kept before the worker deletes them. */
    retentionMs: Math.round(env.TOKEN_RETENTION_DAYS * 86_400_000),
    /** How long an instance may hold a checked access token (0: no cache); see decision 0005. */
    cacheSeconds: env.TOKEN_CACHE_SECONDS,
  };
}

function webhooksConfig(env: Env) {
  return {
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    retryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE.map((seconds) => Math.round(seconds * 1000)),
    allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
    allowHttp: env.WEBHOOK_ALLOW_HTTP === 'true',
    dispatchIntervalMs: env.WEBHOOK_DISPATCH_INTERVAL_MS,
    concurrency: env.WEBHOOK_CONCURRENCY,
    subscriptionConcurrency: env.WEBHOOK_SUBSCRIPTION_CONCURRENCY,
    backOffMs: env.WEBHOOK_BACK_OFF_MS,
    maxSubscriptionsPerClient: env.WEBHOOK_MAX_SUBSCRIPTIONS_PER_CLIENT,
    replayMax: env.WEBHOOK_REPLAY_MAX,
    replaysPerHour: env.WEBHOOK_REPLAYS_PER_HOUR,
    replayEventsPerHour: env.WEBHOOK_REPLAY_EVENTS_PER_HOUR,
    /** How long an event that is no longer pending is kept, with its tries. */
    retentionMs: Math.round(env.WEBHOOK_RETENTION_DAYS * 86_400_000),
  };
}

/** A database URL naming the database `name` + `suffix` on the same server, as the same user. */
export function withDatabaseSuffix(url: string, suffix: string): string {
  const target = new URL(url);
  target.pathname = `/${encodeURIComponent(decodeURIComponent(target.pathname.slice(1)) + suffix)}`;
  return target.toString();
}

function sandboxConfig(env: Env) {
  return {
    enabled: env.SANDBOX === 'on',
    /** The sandbox's read model: the API's schema, the generated club's rows and feed. */
    dbUrl: env.SANDBOX_DATABASE_URL ?? withDatabaseSuffix(env.DATABASE_URL, '_sandbox'),
    /** The generated club's dashboard database: the sandbox's writes and changes land here. */
    legacyUrl:
      env.SANDBOX_LEGACY_DATABASE_URL ?? withDatabaseSuffix(env.LEGACY_DATABASE_URL, '_sandbox'),
  };
}

function consoleConfig(env: Env) {
  return {
    enabled: env.CONSOLE === 'on',
    /** The origin sign-in links point to and state-changing requests must come from. */
    publicOrigin: env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`,
    idleMs: Math.round(env.CONSOLE_SESSION_IDLE_MINUTES * 60_000),
    /** Requests per address and minute to the OpenID Connect sign-in's two routes. */
    signInPerMinute: env.CONSOLE_SIGN_IN_PER_MINUTE,
    maxMs: Math.round(env.CONSOLE_SESSION_MAX_HOURS * 3_600_000),
    /** Production: the session cookie is `__Host-` prefixed and Secure (HTTPS only). */
    secureCookie: env.NODE_ENV === 'production',
    /** Sign-in through an OpenID Connect provider, beside links; null when not configured. */
    oidc:
      env.CONSOLE_OIDC_ISSUER !== undefined &&
      env.CONSOLE_OIDC_CLIENT_ID !== undefined &&
      env.CONSOLE_OIDC_CLIENT_SECRET !== undefined &&
      env.CONSOLE_OIDC_ALLOWED !== undefined
        ? {
            issuer: env.CONSOLE_OIDC_ISSUER,
            clientId: env.CONSOLE_OIDC_CLIENT_ID,
            clientSecret: env.CONSOLE_OIDC_CLIENT_SECRET,
            /** Lower-case e-mail addresses, and `@domain` for every address of a domain. */
            allowed: env.CONSOLE_OIDC_ALLOWED,
            /** Subjects whose address is taken without `email_verified`. */
            allowedSubs: env.CONSOLE_OIDC_ALLOWED_SUBS,
          }
        : null,
  };
}

export interface LoadOptions {
  /** The gateway and the worker sign cursors: in production they refuse to start without it. */
  needsSecretsKey?: boolean;
}

/** Parses the environment; throws one ConfigError naming every bad variable. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: LoadOptions = {},
): Config {
  // An empty variable means "not set", as it does for most operators' tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const fromFile = secretsKeyFromFile(present);
  if (typeof fromFile === 'string') present.SECRETS_KEY = fromFile;
  const parsed = checkedEnvSchema.safeParse(present);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  if (fromFile && typeof fromFile !== 'string') problems.push(fromFile.problem);
  if (
    present.NODE_ENV === 'production' &&
    list(present.SECRETS_KEY ?? '').some((key) => PUBLISHED_SECRETS_KEYS.has(key))
  ) {
    problems.push(
      'SECRETS_KEY: a published key (the demo, development or docker-compose.yml key); ' +
        'production needs its own (openssl rand -base64 32)',
    );
  }
  if (
    options.needsSecretsKey &&
    present.NODE_ENV === 'production' &&
    present.SECRETS_KEY === undefined
  ) {
    problems.push(
      'SECRETS_KEY: required in production (32 bytes in base64; openssl rand -base64 32)',
    );
  }
  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return deepFreeze(toConfig(parsed.data));
}

/**
 * SECRETS_KEY read from the file SECRETS_KEY_FILE names (a secret mounted into a container, or
 * written by docker-compose.yml's `secrets-key` service), surrounding blanks removed; undefined
 * when it is not set; a problem when it cannot be read or SECRETS_KEY is set too.
 */
function secretsKeyFromFile(env: NodeJS.ProcessEnv): string | { problem: string } | undefined {
  const file = env.SECRETS_KEY_FILE;
  if (file === undefined) return undefined;
  if (env.SECRETS_KEY !== undefined)
    return { problem: 'SECRETS_KEY_FILE: set SECRETS_KEY or SECRETS_KEY_FILE, not both' };
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return { problem: 'SECRETS_KEY_FILE: not a file this process can read' };
  }
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (child && typeof child === 'object') deepFreeze(child as object);
  }
  return Object.freeze(value);
}

/** Runs a process entry point; a bad configuration ends it with one line, not a stack trace. */
export function loadConfigOrExit(
  options: LoadOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Config {
  try {
    return loadConfig(env, options);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
