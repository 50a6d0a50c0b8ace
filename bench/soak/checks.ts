// The soak's checks once the load has stopped: `npm run sync:verify` until the read model has
// settled (hard deletes and notifications come by reconciliation, once a minute), and each
// webhook subscription's ledger (published = delivered + failed + pending + cancelled, as
// GET /webhooks/{id} counts it) with every event it counts delivered answered 2xx by the partner.
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { readModelPool, type ReadModelClient } from '#common/databases.js';
import type { DeliveryFigures } from '../../gateway/src/features/webhooks/webhooks.figures.js';
import type { Receiver } from './receivers.js';

const run = promisify(execFile);
const VERIFY_PAUSE_MS = 15_000;

/** The compiled `npm run sync:verify` on the bench's databases: its output, its differences. */
async function syncVerify(variables: Record<string, string>) {
  const result = await run(process.execPath, ['dist/worker/src/sync/verify.cli.js'], {
    env: { ...process.env, ...variables },
  }).catch((error: { stdout?: string; stderr?: string }) => ({
    stdout: error.stdout ?? '',
    stderr: error.stderr ?? '',
  }));
  const total = /^total: (\d+) difference/m.exec(result.stdout);
  return { output: result.stdout + result.stderr, differences: total ? Number(total[1]) : NaN };
}

/** sync:verify again until it finds nothing or `patienceMs` has passed; prints the last. */
export async function verifySettled(
  variables: Record<string, string>,
  patienceMs: number,
): Promise<number> {
  const deadline = Date.now() + patienceMs;
  let verify = await syncVerify(variables);
  while (verify.differences !== 0 && Date.now() < deadline) {
    await sleep(VERIFY_PAUSE_MS);
    verify = await syncVerify(variables);
  }
  console.log(`sync:verify\n${verify.output.trimEnd().replace(/^/gm, '  ')}`);
  return verify.differences;
}

export interface Ledger {
  subscription: number;
  balanced: boolean;
  /** Events counted delivered whose webhook-id the partner never answered 2xx. */
  deliveredUnreceived: number;
  /** Events not delivered (yet): pending, failed or cancelled. */
  undelivered: number;
}

/** Each subscription's ledger, printed, beside what its partner received. */
export async function webhookLedgers(
  readModel: ReadModelClient,
  figures: (id: number) => Promise<DeliveryFigures>,
  subscriptions: { id: number; receiver: Receiver }[],
): Promise<Ledger[]> {
  const ledgers: Ledger[] = [];
  for (const { id, receiver } of subscriptions) {
    const { events } = await figures(id);
    const { rows } = await readModelPool(readModel).query<{ message_id: string }>(
      `SELECT message_id FROM webhook_events WHERE subscription_id = $1 AND status = 'delivered'`,
      [id],
    );
    const sum = events.delivered + events.failed + events.pending + events.cancelled;
    console.log(
      `webhook ledger, subscription ${id}: published ${events.published} = delivered ${events.delivered} ` +
        `+ failed ${events.failed} + pending ${events.pending} + cancelled ${events.cancelled} ` +
        `(rows retained); its partner accepted ${receiver.accepted.size} webhook-ids over the run ` +
        `and answered 500 to ${receiver.refused()} deliveries`,
    );
    ledgers.push({
      subscription: id,
      balanced: sum === events.published,
      deliveredUnreceived: rows.filter((r) => !receiver.accepted.has(r.message_id)).length,
      undelivered: events.pending + events.failed + events.cancelled,
    });
  }
  return ledgers;
}
