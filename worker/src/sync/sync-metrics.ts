// Freshness of each synced table, for Prometheus. Read from sync_state at scrape time, because
// with several worker processes any one of them may have run a table last.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ReadModelClient } from '../../../common/databases.js';
import type { ReconcileResult } from './reconcile.js';
import type { RejectedRow } from './rejects.js';
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

  const rejected = new Counter({
    name: 'sync_rejected_rows_total',
    help: 'Legacy rows set aside as unrepresentable by this process (each counted once per reason)',
    labelNames: ['table'],
    registers: [registry],
  });
  new Gauge({
    name: 'sync_rejects',
    help: 'Legacy rows currently set aside in sync_rejects',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await readModel.syncReject.groupBy({ by: ['table_name'], _count: true });
      for (const c of counts) this.set({ table: c.table_name }, c._count);
    },
  });
  new Gauge({
    name: 'sync_reconcile_lag_seconds',
    help:
      'Seconds since the last complete reconciliation pass of the table started: the bound on ' +
      'how stale a change invisible to polling (a kept updated_at, a hard delete) can be',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      const states = await readModel.syncState.findMany({
        select: { table_name: true, reconciled_at: true },
      });
      const now = Date.now();
      for (const s of states)
        if (s.reconciled_at)
          this.set({ table: s.table_name }, Math.max(0, (now - s.reconciled_at.getTime()) / 1000));
    },
  });
  const repaired = new Counter({
    name: 'sync_reconcile_repaired_rows_total',
    help: 'Read-model rows written or deleted by reconciliation: changes polling did not see',
    labelNames: ['table'],
    registers: [registry],
  });

  return {
    registry,
    recordRejected(rows: RejectedRow[]) {
      for (const r of rows) rejected.inc({ table: r.table });
    },
    recordReconcile(run: ReconcileResult) {
      repaired.inc({ table: run.table }, run.written + run.deleted);
    },
    recordRun(run: SyncRunResult) {
      rows.inc({ table: run.table }, run.rowsWritten);
    },
    recordFailure(table: string) {
      failures.inc({ table });
    },
  };
}

export type SyncMetrics = ReturnType<typeof createSyncMetrics>;
