// Everything information_schema says about a legacy database's structure, for tests proving the
// API leaves it exactly as it found it.
import type { LegacyDashboard } from './legacy-dashboard.js';

const QUERIES = {
  tables:
    'SELECT table_name, engine, table_collation FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1',
  columns:
    'SELECT table_name, column_name, ordinal_position, column_type, is_nullable, column_default, extra, collation_name FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY 1, 3',
  indexes:
    'SELECT table_name, index_name, seq_in_index, column_name, non_unique FROM information_schema.statistics WHERE table_schema = DATABASE() ORDER BY 1, 2, 3',
  constraints:
    'SELECT table_name, constraint_name, constraint_type FROM information_schema.table_constraints WHERE table_schema = DATABASE() ORDER BY 1, 2',
  triggers:
    'SELECT trigger_name FROM information_schema.triggers WHERE trigger_schema = DATABASE() ORDER BY 1',
  routines:
    'SELECT routine_name FROM information_schema.routines WHERE routine_schema = DATABASE() ORDER BY 1',
  views:
    'SELECT table_name FROM information_schema.views WHERE table_schema = DATABASE() ORDER BY 1',
};

export async function legacySchemaSnapshot(dashboard: LegacyDashboard): Promise<string> {
  const snapshot: Record<string, unknown> = {};
  for (const [name, sql] of Object.entries(QUERIES)) snapshot[name] = await dashboard.query(sql);
  return JSON.stringify(snapshot, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}
