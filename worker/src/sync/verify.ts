import { readModelPool } from '#common/databases.js';
import { isKeptTable, keptDifferences, type KeptDifference } from '#read-model/kept-counts.js';
import { compareTable } from './compare.js';
import type { SyncDatabases } from './sync-databases.js';
import type { SyncTable } from '#read-model/table-definition.js';

export interface TableReport {
  table: string;
  missing: number[];
  extra: number[];
  different: { id: number; columns: string[] }[];
  /** Rows set aside as unrepresentable: reported, not counted as differences. */
  rejected: { id: number; reason: string }[];
  /** Kept counts and day sums (read-model/kept-counts.ts) that differ from the rows. */
  kept: KeptDifference[];
}

/** Compares every table of the read model with a fresh projection of the legacy database. */
export async function verifyReadModel(
  tables: readonly SyncTable[],
  db: SyncDatabases,
): Promise<TableReport[]> {
  const reports: TableReport[] = [];
  for (const table of tables) {
    const report: TableReport = {
      table: table.name,
      missing: [],
      extra: [],
      different: [],
      rejected: [],
      kept: isKeptTable(table.name)
        ? await keptDifferences(readModelPool(db.readModel), table.name)
        : [],
    };
    // Rows PostgreSQL refused map fine but are missing: the rejects table says why.
    const refused = new Map(
      (
        await db.readModel.syncReject.findMany({
          where: { table_name: table.name },
          select: { row_id: true, reason: true },
        })
      ).map((r) => [Number(r.row_id), r.reason]),
    );
    for await (const chunk of compareTable(table, db)) {
      for (const id of chunk.missing) {
        const reason = refused.get(id);
        if (reason === undefined) report.missing.push(id);
        else report.rejected.push({ id, reason });
      }
      report.extra.push(...chunk.extra);
      report.different.push(...chunk.different);
      report.rejected.push(...chunk.rejected);
    }
    reports.push(report);
  }
  return reports;
}

export const differenceCount = (reports: TableReport[]) =>
  reports.reduce(
    (sum, r) => sum + r.missing.length + r.extra.length + r.different.length + r.kept.length,
    0,
  );
