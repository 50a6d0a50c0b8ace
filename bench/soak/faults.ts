// The soak's faults (`--faults`): at fixed shares of the run, Redis restarted (empty),
// PostgreSQL restarted, the worker SIGKILLed and started again, one of the two gateways SIGKILLed
// and started again on its port. Redis and PostgreSQL are then servers of the bench's own
// (test/support/spare-*.ts), so restarting them harms nothing else. Each outage is a window from
// the fault to the moment the server or process answers again.
import { SparePostgres } from '../../test/support/spare-postgres.js';
import { SpareRedis } from '../../test/support/spare-redis.js';
import { onInterrupt } from '../cleanup.js';
import { slowStatementLogging } from './slow-statements.js';
import type { Supervised } from './supervised.js';

export interface Outage {
  what: string;
  start: number;
  end: number;
  /** The process the fault killed and started again, by its name in the reports. */
  restarted?: string;
}

/**
 * The bench's own PostgreSQL and Redis, removed by destroy() or on an interrupt. PostgreSQL logs
 * every statement over 100 ms to `postgresLog` (bench/soak/slow-statements.ts).
 */
export async function startPrivateServers() {
  const logging = slowStatementLogging();
  const postgres = await SparePostgres.start({ logging });
  const redis = await SpareRedis.start().catch(async (error: unknown) => {
    await postgres.destroy();
    throw error;
  });
  const destroy = () => Promise.allSettled([postgres.destroy(), redis.destroy()]);
  const forget = onInterrupt(destroy);
  return {
    postgres,
    postgresLog: logging.file,
    redis,
    destroy: async () => {
      forget();
      await destroy();
    },
  };
}

export type PrivateServers = Awaited<ReturnType<typeof startPrivateServers>>;

export interface Fault {
  what: string;
  /** Share of the run at which it happens. */
  at: number;
  run(): Promise<void>;
  restarted?: string;
}

export function faultsOf(
  servers: PrivateServers,
  worker: Supervised,
  secondGateway: Supervised,
): Fault[] {
  return [
    {
      what: 'Redis restarted (empty)',
      at: 0.2,
      run: async () => {
        await servers.redis.stop();
        await servers.redis.start();
      },
    },
    {
      what: 'PostgreSQL restarted',
      at: 0.4,
      run: async () => {
        await servers.postgres.stop();
        await servers.postgres.start();
      },
    },
    {
      what: 'worker SIGKILLed',
      at: 0.6,
      run: () => worker.killAndRestart(),
      restarted: worker.name,
    },
    {
      what: 'gateway 2 SIGKILLed',
      at: 0.8,
      run: () => secondGateway.killAndRestart(),
      restarted: secondGateway.name,
    },
  ];
}

/** Runs a fault and returns its window. */
export async function inject(fault: Fault): Promise<Outage> {
  const start = Date.now();
  await fault.run();
  return { what: fault.what, start, end: Date.now(), restarted: fault.restarted };
}
