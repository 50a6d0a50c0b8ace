// Freshness of each synced table, for Prometheus. Read from sync_state at scrape time, because
// with several worker processes any one of them may have run a table last.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ReadModelClient } from '../../../common/databases.js';
import type { SyncRunResult } from './sync-engine.js';

export function createSyncMetrics(readModel: ReadModelClient) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  async function syncedAt(): Promise<Map<string, number>> {
    const states = await readModel.syncState.findMany({
      select: { table_name: true, synced_at: true },
    });
    return new Map(
      states.flatMap((s) =>
        s.synced_at ? [[s.table_name, s.synced_at.getTime() / 1000] as const] : [],
      ),
    );
  }

  new Gauge({
    name: 'sync_last_success_timestamp_seconds',
    help: 'When the table was last brought fully up to date (Unix seconds)',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      for (const [table, at] of await syncedAt()) this.set({ table }, at);
    },
  });
  new Gauge({
    name: 'sync_lag_seconds',
    help: 'Seconds since the table was last brought fully up to date',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      const now = Date.now() / 1000;
      for (const [table, at] of await syncedAt()) this.set({ table }, Math.max(0, now - at));
    },
  });
  const rows = new Counter({
    name: 'sync_rows_written_total',
    help: 'Read-model rows inserted, updated or deleted by this process',
    labelNames: ['table'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'sync_failures_total',
    help: 'Failed sync runs in this process',
    labelNames: ['table'],
    registers: [registry],
  });

  return {
    registry,
    recordRun(run: SyncRunResult) {
      rows.inc({ table: run.table }, run.rowsWritten);
    },
    recordFailure(table: string) {
      failures.inc({ table });
    },
  };
}

export type SyncMetrics = ReturnType<typeof createSyncMetrics>;
