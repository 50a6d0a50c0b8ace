import { compareTable } from './compare.js';
import type { SyncDatabases } from './sync-engine.js';
import type { SyncTable } from './table-definition.js';

export interface TableReport {
  table: string;
  missing: number[];
  extra: number[];
  different: { id: number; columns: string[] }[];
}

/** Compares every table of the read model with a fresh projection of the legacy database. */
export async function verifyReadModel(
  tables: readonly SyncTable[],
  db: SyncDatabases,
): Promise<TableReport[]> {
  const reports: TableReport[] = [];
  for (const table of tables) {
    const report: TableReport = { table: table.name, missing: [], extra: [], different: [] };
    for await (const chunk of compareTable(table, db)) {
      report.missing.push(...chunk.missing);
      report.extra.push(...chunk.extra);
      report.different.push(...chunk.different);
    }
    reports.push(report);
  }
  return reports;
}

export const differenceCount = (reports: TableReport[]) =>
  reports.reduce((sum, r) => sum + r.missing.length + r.extra.length + r.different.length, 0);
