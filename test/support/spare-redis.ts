// A Redis server of the test's own, on a spare loopback port, that the test can stop and start
// again on the same port: outages are rehearsed here, never on the shared server.
import { spawn } from 'node:child_process';
import type { ServerCertificate } from './certificates.js';
import { freePort, privateDir, SpareServer } from './spare-processes.js';

export class SpareRedis extends SpareServer {
  protected readonly readyLine = /Ready to accept connections/;
  /** Redis keeps nothing here: a stop is a crash, and a start an empty server. */
  protected readonly stopSignal = 'SIGKILL';

  protected constructor(
    port: number,
    dir: string,
    /** Served on the port instead of plain TCP (clients are not asked for certificates). */
    private readonly tls: ServerCertificate | null,
  ) {
    super(port, dir);
  }

  static async start(options: { tls?: ServerCertificate } = {}): Promise<SpareRedis> {
    const dir = privateDir('spare-redis-', null);
    const redis = new SpareRedis(await freePort(), dir, options.tls ?? null);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `${this.tls ? 'rediss' : 'redis'}://127.0.0.1:${this.port}`;
  }

  protected spawnServer() {
    const listen = this.tls
      ? ['--port', '0', '--tls-port', String(this.port), '--tls-auth-clients', 'no'].concat([
          '--tls-cert-file',
          this.tls.certFile,
          '--tls-key-file',
          this.tls.keyFile,
        ])
      : ['--port', String(this.port)];
    return spawn(
      'redis-server',
      [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: this.dir },
    );
  }
}
