// SIGTERM under load, on the real gateway process: with requests held in flight by a table lock
// in PostgreSQL, a second signal exits at once (within a second: so this file runs in the timed
// group). With each sync source (the gateway's part is the same with both). The held requests
// all answered and the exit 0 before SHUTDOWN_TIMEOUT_MS after one signal, and the worker's
// SIGTERM: resilience-shutdown.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelClient, type ReadModelClient } from '#common/databases.js';
import {
  createTestEnvironment,
  SYNC_SOURCES,
  type TestEnvironment,
} from '../support/environment.js';
import { createTestClient, type TestClient } from '../support/gateway.js';
import { gatewayWithHeldRequests } from '../support/held-requests.js';
import type { RunningProcess } from '../support/processes.js';

const SHUTDOWN_TIMEOUT_MS = 8000;
let env: TestEnvironment;
let db: ReadModelClient;
let client: TestClient;
const started: RunningProcess[] = [];

describe.each(SYNC_SOURCES)('with SYNC_SOURCE=%s', (source) => {
  beforeAll(async () => {
    env = await createTestEnvironment({ syncSource: source });
    db = createReadModelClient(env.databaseUrl, { poolSize: 2 });
    client = await createTestClient(db);
  });

  afterAll(async () => {
    for (const p of started) p.kill();
    await db?.$disconnect();
    await env?.destroy();
  });

  describe('the gateway process on SIGTERM', () => {
    it('when a second signal follows, then it exits at once without waiting', async () => {
      const { gateway, locker, answers } = await gatewayWithHeldRequests(
        env,
        db,
        client,
        SHUTDOWN_TIMEOUT_MS,
      );
      started.push(gateway);
      try {
        gateway.child.kill('SIGTERM');
        await gateway.waitForLine((l) => l.msg === 'stopping: finishing work in flight');
        const secondAt = Date.now();
        gateway.child.kill('SIGTERM');
        expect(await gateway.exited).toBe(1);
        expect(Date.now() - secondAt).toBeLessThan(1000);
        await Promise.all(answers);
      } finally {
        await locker.query('ROLLBACK');
        await locker.end();
      }
    });
  });
});
