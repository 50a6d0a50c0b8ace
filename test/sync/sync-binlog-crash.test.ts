// A worker following the binary log (SYNC_SOURCE=binlog), a real process, SIGKILLed while
// commits stream in: the next one resumes from the stored position and misses nothing. The
// writes are the kinds only the log (or a reconciliation pass, an hour apart here) can see: a
// table without updated_at changed in place, and hard deletes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { LegacyDashboard } from '../support/legacy-dashboard.js';
import { environmentVariables, startProcess, type RunningProcess } from '../support/processes.js';
import { verifyEnvironment } from '../support/verify.js';
import { eventually } from '../support/eventually.js';

const ROUNDS = 200;

let env: TestEnvironment;
let dashboard: LegacyDashboard;
let readModel: ReadModelClient;
const started: RunningProcess[] = [];

beforeAll(async () => {
  env = await createTestEnvironment({ syncSource: 'binlog' });
  dashboard = await LegacyDashboard.connect(env.legacyUrl);
  readModel = createReadModelClient(env.databaseUrl, { poolSize: 2 });
}, 120_000);

afterAll(async () => {
  for (const worker of started) worker.kill();
  await readModel?.$disconnect();
  await dashboard?.close();
  await env?.destroy().catch(() => undefined);
});

function startFollower(): RunningProcess {
  const worker = startProcess('worker', {
    ...environmentVariables(env),
    WORKER_ROLES: 'sync',
    RECONCILE_INTERVAL_MS: '3600000',
  });
  started.push(worker);
  return worker;
}

const following = (worker: RunningProcess) =>
  worker.waitForLine((line) => line.msg === 'following the binary log', 60_000);

describe('a worker following the binary log, SIGKILLed mid-stream', () => {
  it('when another is started, then it resumes from the stored position and nothing is missed', async () => {
    const branch = await dashboard.insertBranch();
    const member = await dashboard.insertMember({ branch_id: branch });
    const pkg = await dashboard.insertPackage();
    const first = startFollower();
    const began = await following(first);

    let previousNote = await dashboard.insertNotification({ branch_id: branch });
    let previousSale = 0;
    let atKill: { file: string; position: bigint } | null = null;
    for (let round = 1; round <= ROUNDS; round += 1) {
      // One transaction per round: a change in place of a table without updated_at, a hard
      // delete, and two inserts.
      await dashboard.query('START TRANSACTION');
      await dashboard.update('notifications', previousNote, { title: `Tur ${round}` });
      previousNote = await dashboard.insertNotification({ branch_id: branch });
      if (previousSale)
        await dashboard.query('DELETE FROM member_packages WHERE id = ?', [previousSale]);
      previousSale = await dashboard.insertMemberPackage({
        member_id: member,
        package_id: pkg,
        branch_id: branch,
      });
      await dashboard.query('COMMIT');
      if (round === ROUNDS / 2) {
        // Killed once it has applied part of the stream (its client takes a moment to start).
        await eventually(
          async () => {
            const row = await readModel.binlogPosition.findUniqueOrThrow({ where: { id: 1 } });
            expect(row.position).toBeGreaterThan(BigInt(began.position as number));
          },
          10_000,
          20,
        );
        first.kill();
        await first.exited;
        const row = await readModel.binlogPosition.findUniqueOrThrow({ where: { id: 1 } });
        atKill = { file: row.file, position: row.position };
      }
    }
    // The killed follower had applied some of the stream, not all of it.
    const [end] = await dashboard.query<{ File: string; Position: bigint }>('SHOW MASTER STATUS');
    expect(atKill?.file).toBe(end?.File);
    expect(atKill!.position).toBeGreaterThan(BigInt(began.position as number));
    expect(atKill!.position).toBeLessThan(BigInt(end!.Position));

    const second = startFollower();
    const resumed = await following(second);
    expect(resumed.file).toBe(atKill!.file);
    expect(BigInt(resumed.position as number)).toBe(atKill!.position);
    await eventually(
      async () => {
        const notes = await readModel.$queryRaw<{ title: string }[]>`SELECT title
          FROM notifications ORDER BY id DESC LIMIT 1 OFFSET 1`;
        expect(notes[0]?.title).toBe(`Tur ${ROUNDS}`);
        const sales = await readModel.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n
          FROM member_packages`;
        expect(Number(sales[0]?.n)).toBe(1);
      },
      30_000,
      200,
    );
    const { total, reports } = await verifyEnvironment(env);
    expect(reports).toEqual([]);
    expect(total).toBe(0);
  }, 90_000);
});
