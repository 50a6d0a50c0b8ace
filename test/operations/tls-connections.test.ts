// Encrypted connections where the URL asks for them (docs/operations/configure.md, "Encrypted
// connections"): private MySQL (MariaDB), PostgreSQL and Redis servers of this test's own, each started with a
// certificate signed by an authority the test makes, and one signed by another authority. Each
// client, configured to trust the first authority, works with the first server and refuses the
// second.
import ZongJi from '@vlasky/zongji';
import * as mariadb from 'mariadb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#common/config.js';
import { createReadModelClient, readModelPool } from '#common/databases.js';
import { legacyConnectionOf } from '#common/legacy-database.js';
import { createRedis } from '#common/redis.js';
import { migrateReadModel } from '#prisma/read-model/migrate.js';
import { binlogConnectionOf } from '../../worker/src/sync/binlog/log-client.js';
import {
  issueServerCertificate,
  makeAuthority,
  type Authority,
  type ServerCertificate,
} from '../support/certificates.js';
import { createTestEnvironment } from '../support/environment.js';
import { SpareMariaDb } from '../support/spare-mariadb.js';
import { SparePostgres } from '../support/spare-postgres.js';
import { privateDir, removeDir } from '../support/spare-processes.js';
import { SpareRedis } from '../support/spare-redis.js';

// What Node's TLS says of a chain it cannot verify ("unable to verify the first certificate",
// "unable to get local issuer certificate", "self-signed certificate in certificate chain").
const REFUSED = /certificate/;

let dir: string;
let ours: Authority;
let signed: ServerCertificate;
let stranger: ServerCertificate;

beforeAll(() => {
  dir = privateDir('tls-', null);
  ours = makeAuthority(dir, 'ours');
  signed = issueServerCertificate(ours, dir, 'signed');
  stranger = issueServerCertificate(makeAuthority(dir, 'other'), dir, 'stranger');
});

afterAll(() => {
  if (dir) removeDir(dir);
});

describe('PostgreSQL with sslmode=verify-full', () => {
  let trusted: SparePostgres;
  let untrusted: SparePostgres;
  const verifyFull = (server: SparePostgres) =>
    `${server.url}?sslmode=verify-full&sslrootcert=${ours.certFile}`;

  beforeAll(async () => {
    [trusted, untrusted] = await Promise.all([
      SparePostgres.start({ tls: signed }),
      SparePostgres.start({ tls: stranger }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([trusted?.destroy(), untrusted?.destroy()]);
  });

  it('when the configured authority signed the server certificate, then the migrations apply and the read model is read over TLS', async () => {
    const env = await createTestEnvironment({ postgresUrl: verifyFull(trusted) });
    const db = createReadModelClient(env.config().db.url);
    try {
      const { rows } = await readModelPool(db).query(
        'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
      );
      expect(rows).toEqual([{ ssl: true }]);
      expect(await db.branch.count()).toBe(0);
    } finally {
      await db.$disconnect();
      await env.destroy();
    }
  });

  it('when another authority signed it, then the migration runner and the read model client refuse the server', async () => {
    const url = verifyFull(untrusted);
    await expect(migrateReadModel(url)).rejects.toThrow(REFUSED);
    const db = createReadModelClient(loadConfig({ DATABASE_URL: url }).db.url);
    try {
      await expect(readModelPool(db).query('SELECT 1')).rejects.toThrow(REFUSED);
    } finally {
      await db.$disconnect();
    }
  });
});

describe('Redis over rediss://', () => {
  let trusted: SpareRedis;
  let untrusted: SpareRedis;

  beforeAll(async () => {
    [trusted, untrusted] = await Promise.all([
      SpareRedis.start({ tls: signed }),
      SpareRedis.start({ tls: stranger }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([trusted?.destroy(), untrusted?.destroy()]);
  });

  /** The first error the client reports while connecting, or null when a PING is answered. */
  async function connectWith(env: Record<string, string>) {
    const config = loadConfig(env);
    const redis = createRedis(config.redis.url, { forWorker: true, caFile: config.redis.caFile });
    try {
      return await Promise.race([
        redis.ping().then(() => null),
        new Promise<Error>((resolve) => redis.once('error', resolve)),
      ]);
    } finally {
      redis.disconnect();
    }
  }

  it('when the configured authority signed the server certificate, then commands are answered over TLS', async () => {
    expect(await connectWith({ REDIS_URL: trusted.url, REDIS_CA_FILE: ours.certFile })).toBe(null);
  });

  it('when another authority signed it, or no authority is configured, then the client refuses the server', async () => {
    const refused = await connectWith({ REDIS_URL: untrusted.url, REDIS_CA_FILE: ours.certFile });
    expect(refused?.message).toMatch(REFUSED);
    // The system's authorities do not know the test's own either.
    expect((await connectWith({ REDIS_URL: trusted.url }))?.message).toMatch(REFUSED);
  });
});

describe('MySQL with ssl-ca in LEGACY_DATABASE_URL', () => {
  let trusted: SpareMariaDb;
  let untrusted: SpareMariaDb;
  const verifyIdentity = (server: SpareMariaDb) =>
    `${server.url}?ssl-mode=VERIFY_IDENTITY&ssl-ca=${ours.certFile}`;

  beforeAll(async () => {
    [trusted, untrusted] = await Promise.all([
      SpareMariaDb.start({ binaryLog: true, tls: signed }),
      SpareMariaDb.start({ binaryLog: true, tls: stranger }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([trusted?.destroy(), untrusted?.destroy()]);
  });

  /** The cipher the server reports for a connection with the options every legacy pool takes. */
  async function legacyCipher(url: string) {
    const options = legacyConnectionOf(loadConfig({ LEGACY_DATABASE_URL: url }).legacy.url);
    const connection = await mariadb.createConnection({ ...options, connectTimeout: 2000 });
    try {
      const rows: { Value: string }[] = await connection.query(
        "SHOW SESSION STATUS LIKE 'Ssl_cipher'",
      );
      return rows[0]?.Value;
    } finally {
      await connection.end();
    }
  }

  /** Whether the worker's binary-log client starts reading: null, or the error it reported. */
  async function binlogClientError(url: string) {
    const client = new ZongJi(binlogConnectionOf(url));
    try {
      return await new Promise<Error | null>((resolve) => {
        client.on('ready', () => resolve(null));
        client.on('error', resolve);
        client.start({ serverId: 0x7e_57, startAtEnd: true, includeEvents: ['rotate'] });
      });
    } finally {
      client.stop();
    }
  }

  it('when the configured authority signed the server certificate, then the legacy connections and the binary-log client connect over TLS', async () => {
    expect(await legacyCipher(verifyIdentity(trusted))).toMatch(/^TLS_/);
    expect(await binlogClientError(verifyIdentity(trusted))).toBe(null);
  });

  it('when another authority signed it, then the legacy connections and the binary-log client refuse the server', async () => {
    await expect(legacyCipher(verifyIdentity(untrusted))).rejects.toThrow(REFUSED);
    expect((await binlogClientError(verifyIdentity(untrusted)))?.message).toMatch(REFUSED);
  });
});
