// Bounded closing of BullMQ workers and queues at a stop (decision 0006).
import type { throttledLog } from '#common/log-throttle.js';

/**
 * How long a BullMQ worker or queue may take to close once its jobs stop at a safe point (a sync
 * run at its next batch boundary, a webhook try recorded or not begun).
 * After Redis restarted, BullMQ's close can wait forever on a blocking connection stuck in its
 * reconnect (taskforcesh/bullmq#4656): the drain would then miss its deadline although no run is
 * left. Past this, the close is forced: a run's rows and position commit together, and a webhook
 * event stays pending until a try is recorded, so a forced close loses nothing.
 */
const CLOSE_GRACE_MS = 2000;

export async function closeWithin(
  closable: { name: string; close(force?: boolean): Promise<void> },
  log: ReturnType<typeof throttledLog>,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS);
  });
  try {
    if ((await Promise.race([closable.close(), late])) !== 'late') return;
  } finally {
    clearTimeout(timer);
  }
  log('warn', 'close', { queue: closable.name }, 'close did not finish in time; forced');
  // Forced, and not awaited past a second grace: the process is stopping either way.
  await Promise.race([
    closable.close(true).catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref()),
  ]);
}

/**
 * A worker that takes no job though its due jobs wait (its blocking connection stuck in its
 * reconnect after a Redis failover, docs/decisions/0006): another is opened, which takes them at
 * once, and the stuck one is closed meanwhile, not awaited.
 */
export function replaceStuck<W extends { name: string; close(force?: boolean): Promise<void> }>(
  stuck: W,
  open: () => W,
  log: ReturnType<typeof throttledLog>,
): W {
  const opened = open();
  void closeWithin(stuck, log);
  return opened;
}
