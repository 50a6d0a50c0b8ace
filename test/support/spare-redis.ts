// A Redis server of the test's own, on a spare loopback port, that the test can stop and start
// again on the same port: outages are rehearsed here, never on the shared server.
import { spawn } from 'node:child_process';
import { freePort, privateDir, SpareServer } from './spare-processes.js';

export class SpareRedis extends SpareServer {
  protected readonly readyLine = /Ready to accept connections/;
  /** Redis keeps nothing here: a stop is a crash, and a start an empty server. */
  protected readonly stopSignal = 'SIGKILL';

  static async start(): Promise<SpareRedis> {
    const redis = new SpareRedis(await freePort(), privateDir('spare-redis-', null));
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  protected spawnServer() {
    return spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: this.dir },
    );
  }
}
