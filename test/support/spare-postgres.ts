// A PostgreSQL server of the test's own (initdb in a temp dir, a spare loopback port) that the
// test can stop, start again on the same port and data, and freeze: outages are rehearsed here,
// never on the shared server.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, createWriteStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerCertificate } from './certificates.js';
import { freePort, osUser, privateDir, SpareServer, type OsUser } from './spare-processes.js';

export function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

export class SparePostgres extends SpareServer {
  protected readonly readyLine = /ready to accept connections/;
  /** Fast shutdown: clients see 57P01 "terminating connection due to administrator command". */
  protected readonly stopSignal = 'SIGINT';
  /** Immediate shutdown: the postmaster takes its backends down with it. */
  protected override readonly killSignal = 'SIGQUIT';

  protected constructor(
    port: number,
    dir: string,
    protected readonly user: OsUser | null,
    /** Offered to clients that ask for TLS (ssl=on); none: no TLS. */
    private readonly tls: ServerCertificate | null = null,
    private readonly logging: PostgresLogging | null = null,
  ) {
    super(port, dir);
  }

  static async start(
    options: { tls?: ServerCertificate; logging?: PostgresLogging } = {},
  ): Promise<SparePostgres> {
    const user = process.getuid?.() === 0 ? osUser('postgres') : null;
    const dir = privateDir('spare-pg-', user);
    const tls = options.tls ? ownCopy(options.tls, dir, user) : null;
    const server = new SparePostgres(await freePort(), dir, user, tls, options.logging);
    try {
      execFileSync(
        join(binDir(), 'initdb'),
        ['-D', server.dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'],
        { stdio: 'pipe', ...(user ?? {}) },
      );
      await server.start();
    } catch (error) {
      await server.destroy();
      throw error;
    }
    return server;
  }

  protected get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** A URL of this server; the database path is for createThrowawayEnvironment to replace. */
  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  protected spawnServer() {
    const child = spawn(
      join(binDir(), 'postgres'),
      ['-D', this.dataDir, '-p', String(this.port), '-k', this.dir, '-h', '127.0.0.1'].concat([
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        ...(this.tls
          ? ['-c', 'ssl=on', '-c', `ssl_cert_file=${this.tls.certFile}`].concat([
              '-c',
              `ssl_key_file=${this.tls.keyFile}`,
            ])
          : []),
        ...Object.entries(this.logging?.settings ?? {}).flatMap(([name, value]) => [
          '-c',
          `${name}=${value}`,
        ]),
      ]),
      { stdio: ['ignore', 'pipe', 'pipe'], ...(this.user ?? {}) },
    );
    // The server logs to its stderr; a copy goes to the file, appended across restarts.
    if (this.logging) child.stderr.pipe(createWriteStream(this.logging.file, { flags: 'a' }));
    return child;
  }
}

/** Settings the server starts with (`-c name=value`), and the file its log is copied to. */
export interface PostgresLogging {
  settings: Record<string, string>;
  file: string;
}

/** The server refuses a key file that is not its own and private: a copy in its directory. */
function ownCopy(tls: ServerCertificate, dir: string, user: OsUser | null): ServerCertificate {
  const copy = { certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') };
  copyFileSync(tls.certFile, copy.certFile);
  copyFileSync(tls.keyFile, copy.keyFile);
  chmodSync(copy.keyFile, 0o600);
  if (user) {
    chownSync(copy.certFile, user.uid, user.gid);
    chownSync(copy.keyFile, user.uid, user.gid);
  }
  return copy;
}
