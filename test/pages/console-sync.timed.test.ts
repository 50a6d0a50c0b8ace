// The console's sync health page against a real worker: every table with its source, lag, last
// pass and last verify while the worker runs, and each marked stale within three sync intervals
// of the worker being stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_TABLES } from '#read-model/tables/index.js';
import { ConsoleBrowser } from '../support/console-session.js';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';
import { operatorCliWith } from '../support/operator-cli.js';
import { eventually } from '../support/eventually.js';
import { startWorker } from '../support/worker.js';

const INTERVAL_MS = 1000;

let env: TestEnvironment;
let gateway: RunningGateway;
let worker: Awaited<ReturnType<typeof startWorker>> | undefined;

beforeAll(async () => {
  env = await createTestEnvironment();
  const settings = { SYNC_INTERVAL_MS: String(INTERVAL_MS) };
  gateway = await startGateway(env, settings);
  worker = await startWorker(env, { intervalMs: INTERVAL_MS, settings });
});

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await env?.destroy();
});

interface ShownTable {
  stale: boolean;
  cells: string[];
}

/** The page's table, by table name: whether the row is marked stale, and its cells' text. */
async function shownTables(browser: ConsoleBrowser): Promise<Map<string, ShownTable>> {
  const page = await browser.get('/console/sync');
  expect(page.status).toBe(200);
  const rows = page.html.matchAll(/<tr data-table="([^"]+)"( class="stale")?>(.*?)<\/tr>/gs);
  return new Map(
    [...rows].map(([, name, stale, cells]) => [
      name!,
      {
        stale: stale !== undefined,
        cells: [...cells!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map(([, c]) =>
          c!.replace(/<[^>]+>/g, ''),
        ),
      },
    ]),
  );
}

describe('console sync health', () => {
  it('when the worker runs, then every table shows its source, lag and last verify; when it stops, then each is stale within 3 intervals', async () => {
    const browser = new ConsoleBrowser(gateway);
    await browser.signIn(env.redisPrefix);
    const names = SYNC_TABLES.map((t) => t.name).sort();

    await operatorCliWith(env, {}, 'sync:verify');
    await eventually(async () => {
      const shown = await shownTables(browser);
      expect([...shown.keys()].sort()).toEqual(names);
      for (const [name, row] of shown) {
        expect(row.stale, name).toBe(false);
        // Table, source, state, lag, last pass, rows, reconciliation, rejects, last verify.
        expect(row.cells[1], name).toBe('poll');
        expect(row.cells[2], name).toMatch(/^(following|reconciling)$/);
        // A lag in seconds, as Intl words it in English (pages/locale.ts): "0 secs", "1 sec".
        expect(row.cells[3], name).toMatch(/^\d+ secs?$/);
        expect(row.cells[8], name).toMatch(/: 0 differences$/);
      }
    }, 60_000);

    await worker!.close();
    worker = undefined;
    const stopped = Date.now();
    await eventually(async () => {
      const shown = await shownTables(browser);
      for (const [name, row] of shown) {
        expect(row.stale, name).toBe(true);
        expect(row.cells[2], name).toBe('stale');
      }
    }, 10_000);
    expect(Date.now() - stopped).toBeLessThan(3 * INTERVAL_MS);
  }, 120_000);
});
