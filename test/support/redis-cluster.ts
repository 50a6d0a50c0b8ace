// A Redis Cluster of the test's own: three masters, each with one replica, on spare loopback
// ports. A test kills a master and watches its replica take over, which the shared server (a
// single Redis) cannot rehearse.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, privateDir, SpareServer, waitUntil } from './spare-processes.js';

const MASTERS = 3;
const SLOTS = 16384;

export interface ClusterNodeState {
  port: number;
  role: 'master' | 'replica';
  /** False once killMaster killed it; it stays dead. */
  alive: boolean;
}

/** A range of hash slots and the ports serving it, as one node's CLUSTER SLOTS says. */
interface SlotRange {
  start: number;
  end: number;
  master: number;
  replicas: number[];
}

class ClusterNode extends SpareServer {
  protected readonly readyLine = /Ready to accept connections/;
  /** A stop is a crash: nothing is persisted, and the cluster sees a node vanish. */
  protected readonly stopSignal = 'SIGKILL';

  constructor(
    port: number,
    /** Given explicitly: the default, port + 10000, is past 65535 for most ephemeral ports. */
    private readonly busPort: number,
  ) {
    super(port, privateDir('redis-cluster-', null));
  }

  protected spawnServer() {
    return spawn(
      'redis-server',
      [
        ...['--port', String(this.port), '--bind', '127.0.0.1'],
        ...['--save', '', '--appendonly', 'no'],
        ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
        ...['--cluster-port', String(this.busPort), '--cluster-node-timeout', '2000'],
        // A replica whose master went quiet a while ago would otherwise refuse to take over
        // (its data is "too old"), and the test would wait for a failover that never comes.
        ...['--cluster-replica-validity-factor', '0'],
        // CLUSTER SLOTS lists a replica only once its replication offset moved, which on an idle
        // master takes the first ping (every 10 s by default); a full sync waits 5 s for company.
        ...['--repl-ping-replica-period', '1', '--repl-diskless-sync-delay', '0'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: this.dir },
    );
  }
}

/** Distinct ports: two calls of freePort may hand out the same one, and each node needs two. */
async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** One command on one node, on a connection of its own that never retries. */
async function ask(port: number, command: string, ...args: string[]): Promise<unknown> {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 2000,
  });
  // A dead node rejects connect(); the 'error' event would otherwise be unhandled.
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await redis.call(command, ...args);
  } finally {
    redis.disconnect();
  }
}

async function slotsSeenBy(port: number): Promise<SlotRange[]> {
  type Node = [host: string, port: number, id: string];
  const reply = (await ask(port, 'CLUSTER', 'SLOTS')) as [number, number, Node, ...Node[]][];
  return reply
    .map(([start, end, master, ...replicas]) => ({
      start,
      end,
      master: master[1],
      replicas: replicas.map((replica) => replica[1]).sort((a, b) => a - b),
    }))
    .sort((a, b) => a.start - b.start);
}

async function clusterStateOk(port: number): Promise<boolean> {
  const info = String(await ask(port, 'CLUSTER', 'INFO'));
  return /^cluster_state:ok\r?$/m.test(info);
}

export class RedisClusterServers {
  /** The ranges each killed master served, for waitForFailover to find their new owner. */
  private readonly lostSlots = new Map<number, SlotRange[]>();
  private topology: SlotRange[] = [];
  private seeds: number[] = [];

  private constructor(private readonly servers: ClusterNode[]) {}

  static async start(): Promise<RedisClusterServers> {
    const ports = await freePorts(MASTERS * 2 * 2);
    const servers = Array.from(
      { length: MASTERS * 2 },
      (_, i) => new ClusterNode(ports[2 * i]!, ports[2 * i + 1]!),
    );
    const cluster = new RedisClusterServers(servers);
    try {
      await Promise.all(servers.map((server) => server.start()));
      await promisify(execFile)(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...servers.map((server) => `127.0.0.1:${server.port}`),
          ...['--cluster-replicas', '1', '--cluster-yes'],
        ],
        { timeout: 30_000 },
      );
      await cluster.waitForAgreement(servers, 30_000);
      cluster.seeds = cluster.topology.map((range) => range.master);
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
    return cluster;
  }

  /**
   * The masters at start as seeds, the scheme common/redis.ts reads. It stays usable after a
   * failover: a client needs one live seed to learn the rest.
   */
  get url(): string {
    return `redis+cluster://${this.seeds.map((port) => `127.0.0.1:${port}`).join(',')}`;
  }

  /** Roles as of start or the last waitForFailover; a killed master keeps its role. */
  get nodes(): ClusterNodeState[] {
    const masters = new Set(this.topology.map((range) => range.master));
    return this.servers.map(({ port }) => {
      const alive = !this.lostSlots.has(port);
      return { port, role: masters.has(port) || !alive ? 'master' : 'replica', alive };
    });
  }

  /** The port of the master serving the key's slot, as a surviving node sees it now. */
  async masterOf(key: string): Promise<number> {
    const port = this.livePorts()[0]!;
    const slot = Number(await ask(port, 'CLUSTER', 'KEYSLOT', key));
    const range = (await slotsSeenBy(port)).find((r) => r.start <= slot && slot <= r.end);
    if (!range) throw new Error(`no master serves slot ${slot} (key "${key}")`);
    return range.master;
  }

  /** SIGKILL, as a crashed host: its replica takes over some seconds later (waitForFailover). */
  async killMaster(port: number): Promise<void> {
    const server = this.servers.find((s) => s.port === port);
    const ranges = this.topology.filter((range) => range.master === port);
    if (!server || this.lostSlots.has(port) || ranges.length === 0) {
      throw new Error(`${port} is not a live master of this cluster`);
    }
    this.lostSlots.set(port, ranges);
    await server.stop();
  }

  /** Until the killed master's slots have a new master and every survivor says the same. */
  async waitForFailover(port: number, timeoutMs = 15_000): Promise<void> {
    const lost = this.lostSlots.get(port);
    if (!lost) throw new Error(`${port} was not killed by killMaster`);
    const survivors = this.servers.filter((server) => !this.lostSlots.has(server.port));
    const live = new Set(survivors.map((server) => server.port));
    await waitUntil(`failover of ${port}`, timeoutMs, async () => {
      const views = await Promise.all(survivors.map((server) => slotsSeenBy(server.port)));
      const owners = views.map((view) =>
        lost.map((range) => view.find((r) => r.start <= range.start && range.end <= r.end)),
      );
      const taken = owners.every((ranges) =>
        ranges.every((range) => range !== undefined && live.has(range.master)),
      );
      // Masters only: replica lists converge later and are not what a client needs.
      const masters = views.map((view) => JSON.stringify(view.map((r) => [r.start, r.master])));
      if (!taken || new Set(masters).size !== 1) return false;
      const states = await Promise.all(survivors.map((server) => clusterStateOk(server.port)));
      if (!states.every(Boolean)) return false;
      const roles = await Promise.all(
        owners[0]!.map((range) => ask(range!.master, 'ROLE') as Promise<[string]>),
      );
      if (!roles.every(([role]) => role === 'master')) return false;
      this.topology = views[0]!;
      return true;
    });
  }

  async destroy(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.destroy()));
  }

  private livePorts(): number[] {
    return this.servers.map((s) => s.port).filter((port) => !this.lostSlots.has(port));
  }

  /**
   * Until every node says cluster_state:ok, all six report the same slot map (each range a
   * master and one replica), and every replica has its master's data: redis-cli returns once
   * slots are assigned, before the nodes have all heard of each other.
   */
  private async waitForAgreement(servers: ClusterNode[], timeoutMs: number): Promise<void> {
    await waitUntil('cluster agreement', timeoutMs, async () => {
      const views = await Promise.all(servers.map((server) => slotsSeenBy(server.port)));
      const view = views[0]!;
      const covered = view.reduce((sum, range) => sum + range.end - range.start + 1, 0);
      if (covered !== SLOTS || view.some((range) => range.replicas.length !== 1)) return false;
      if (new Set(views.map((v) => JSON.stringify(v))).size !== 1) return false;
      const states = await Promise.all(servers.map((server) => clusterStateOk(server.port)));
      if (!states.every(Boolean)) return false;
      const replicas = view.flatMap((range) => range.replicas);
      const links = await Promise.all(
        replicas.map((port) => ask(port, 'INFO', 'replication').then(String)),
      );
      if (!links.every((info) => /^master_link_status:up\r?$/m.test(info))) return false;
      this.topology = view;
      return true;
    });
  }
}
