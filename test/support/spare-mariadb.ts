// A MariaDB server of the test's own (mariadb-install-db in a temp dir, a spare loopback port)
// that the test can stop and start again on the same port and data: outages are rehearsed
// here, never on the shared server.
import { execFile, spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ServerCertificate } from './certificates.js';
import { freePort, privateDir, SpareServer } from './spare-processes.js';

export interface SpareMariaDbOptions {
  /**
   * A row-based binary log with full row images, as change capture needs it; the log of a
   * server started with it off can be turned on by setting this and starting it again.
   */
  binaryLog?: boolean;
  /**
   * InnoDB's buffer pool, in MB (default 32: a test's few rows). A benchmark that reads a
   * generated dashboard asks for the shared server's 128.
   */
  bufferPoolMb?: number;
  /** A certificate offered to clients that ask for TLS; none: no TLS. */
  tls?: ServerCertificate;
}

/** An empty server's data directory, as a new installation has it. */
export async function installDataDir(dataDir: string): Promise<void> {
  await promisify(execFile)('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${dataDir}`,
    '--user=root',
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
  ]);
}

export class SpareMariaDb extends SpareServer {
  protected readonly readyLine = /ready for connections/;
  /** A clean shutdown: connections are closed by the server. */
  protected readonly stopSignal = 'SIGTERM';
  binaryLog = false;
  bufferPoolMb = 32;
  tls: ServerCertificate | null = null;

  /**
   * A data directory fresh from `mariadb-install-db` that start() copies instead of installing
   * again (about 1 s against 4 s); the test run makes one (test/support/global-setup.ts).
   */
  static template: string | undefined;

  static async start(options: SpareMariaDbOptions = {}): Promise<SpareMariaDb> {
    const server = new SpareMariaDb(await freePort(), privateDir('spare-mariadb-', null));
    server.binaryLog = options.binaryLog ?? false;
    server.bufferPoolMb = options.bufferPoolMb ?? 32;
    server.tls = options.tls ?? null;
    try {
      if (SpareMariaDb.template) cpSync(SpareMariaDb.template, server.dataDir, { recursive: true });
      else await installDataDir(server.dataDir);
      await server.start();
    } catch (error) {
      await server.destroy();
      throw error;
    }
    return server;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** A URL of this server as root; the database path is for the throwaway environment. */
  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}/mysql`;
  }

  protected spawnServer() {
    return spawn(
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${this.dataDir}`,
        '--user=root',
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(this.dir, 'mariadb.sock')}`,
        `--pid-file=${join(this.dir, 'mariadb.pid')}`,
        ...(this.binaryLog
          ? [
              `--log-bin=${join(this.dir, 'binlog')}`,
              '--binlog-format=ROW',
              '--binlog-row-image=FULL',
              '--server-id=1',
            ]
          : ['--skip-log-bin']),
        `--innodb-buffer-pool-size=${this.bufferPoolMb}M`,
        '--innodb-flush-log-at-trx-commit=0',
        '--character-set-server=utf8mb4',
        '--collation-server=utf8mb4_turkish_ci',
        ...(this.tls ? [`--ssl-cert=${this.tls.certFile}`, `--ssl-key=${this.tls.keyFile}`] : []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
  }
}
