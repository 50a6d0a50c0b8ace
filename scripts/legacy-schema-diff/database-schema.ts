// The live database's side of the legacy schema diff (legacy-schema-diff.ts): information_schema
// read as MySQL or MariaDB reports it, each object made one line (schema-lines.ts).
import type { Connection } from 'mariadb';
import { connectLegacy, databaseName } from '../legacy/legacy-database.js';
import {
  columnLine,
  currentTimestamp,
  foreignKeyLine,
  indexLine,
  objectKey,
  primaryKeyLine,
  type ColumnDefault,
  type SchemaObjects,
} from './schema-lines.js';

interface ColumnRow {
  table_name: string;
  column_name: string;
  column_type: string;
  is_nullable: string;
  column_default: string | null;
  extra: string;
}

interface IndexRow {
  table_name: string;
  index_name: string;
  non_unique: number | bigint | string;
  index_type: string;
  column_name: string | null;
  sub_part: number | bigint | string | null;
  collation: string | null;
}

interface ForeignKeyRow {
  table_name: string;
  constraint_name: string;
  referenced_table_name: string;
  update_rule: string;
  delete_rule: string;
  column_name: string;
  referenced_column_name: string;
}

export async function describeMysqlDatabase(url: string): Promise<SchemaObjects> {
  const schemaName = databaseName(url);
  const conn = await connectLegacy(url);
  try {
    const { isMariaDb, tables, columns, indexRows, foreignKeyRows } = await readInformationSchema(
      conn,
      schemaName,
    );

    const objects: SchemaObjects = new Map();
    for (const { table_name } of tables) {
      objects.set(objectKey.table(table_name), `table ${table_name}`);
    }
    addColumns(objects, columns, isMariaDb);
    addIndexes(objects, indexRows);
    addForeignKeys(objects, foreignKeyRows);
    return objects;
  } finally {
    await conn.end();
  }
}

/** The database's tables, columns, indexes and foreign keys, as information_schema lists them. */
async function readInformationSchema(conn: Connection, schemaName: string) {
  const [{ version }] = await conn.query<[{ version: string }]>('SELECT VERSION() AS version');
  const isMariaDb = /mariadb/i.test(version);
  // Lower-case aliases: MySQL 8 and MariaDB disagree on the case of information_schema labels.
  const tables = await conn.query<{ table_name: string }[]>(
    `SELECT TABLE_NAME AS table_name FROM information_schema.TABLES
      WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'`,
    [schemaName],
  );
  const columns = await conn.query<ColumnRow[]>(
    `SELECT c.TABLE_NAME AS table_name, c.COLUMN_NAME AS column_name,
            c.COLUMN_TYPE AS column_type, c.IS_NULLABLE AS is_nullable,
            c.COLUMN_DEFAULT AS column_default, c.EXTRA AS extra
       FROM information_schema.COLUMNS c
       JOIN information_schema.TABLES t
         ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
      WHERE c.TABLE_SCHEMA = ? AND t.TABLE_TYPE = 'BASE TABLE'`,
    [schemaName],
  );
  const indexRows = await conn.query<IndexRow[]>(
    `SELECT TABLE_NAME AS table_name, INDEX_NAME AS index_name, NON_UNIQUE AS non_unique,
            INDEX_TYPE AS index_type, COLUMN_NAME AS column_name, SUB_PART AS sub_part,
            COLLATION AS collation
       FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = ?
      ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    [schemaName],
  );
  const foreignKeyRows = await conn.query<ForeignKeyRow[]>(
    `SELECT rc.TABLE_NAME AS table_name, rc.CONSTRAINT_NAME AS constraint_name,
            rc.REFERENCED_TABLE_NAME AS referenced_table_name,
            rc.UPDATE_RULE AS update_rule, rc.DELETE_RULE AS delete_rule,
            k.COLUMN_NAME AS column_name, k.REFERENCED_COLUMN_NAME AS referenced_column_name
       FROM information_schema.REFERENTIAL_CONSTRAINTS rc
       JOIN information_schema.KEY_COLUMN_USAGE k
         ON k.CONSTRAINT_SCHEMA = rc.CONSTRAINT_SCHEMA AND k.TABLE_NAME = rc.TABLE_NAME
        AND k.CONSTRAINT_NAME = rc.CONSTRAINT_NAME
      WHERE rc.CONSTRAINT_SCHEMA = ?
      ORDER BY rc.TABLE_NAME, rc.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
    [schemaName],
  );
  return { isMariaDb, tables, columns, indexRows, foreignKeyRows };
}

function addColumns(objects: SchemaObjects, columns: ColumnRow[], isMariaDb: boolean) {
  for (const row of columns) {
    const type = normalizeMysqlType(row.column_type);
    objects.set(
      objectKey.column(row.table_name, row.column_name),
      columnLine(
        row.table_name,
        row.column_name,
        type,
        row.is_nullable === 'YES',
        mysqlColumnDefault(row.column_default, row.extra, isMariaDb),
        /auto_increment/i.test(row.extra),
      ),
    );
  }
}

/** Index lines: information_schema gives one row per indexed column, in index order. */
function addIndexes(objects: SchemaObjects, indexRows: IndexRow[]) {
  const indexes = new Map<string, { row: IndexRow; columns: string[] }>();
  for (const row of indexRows) {
    const key = `${row.table_name}\u0000${row.index_name}`;
    const index = indexes.get(key) ?? { row, columns: [] };
    const length = row.sub_part === null ? '' : `(${Number(row.sub_part)})`;
    const order = row.collation === 'D' ? ' DESC' : '';
    index.columns.push(`${row.column_name ?? '<expression>'}${length}${order}`);
    indexes.set(key, index);
  }
  for (const { row, columns: indexColumns } of indexes.values()) {
    const table = row.table_name;
    if (row.index_name === 'PRIMARY') {
      objects.set(objectKey.primaryKey(table), primaryKeyLine(table, indexColumns));
      continue;
    }
    const kind =
      row.index_type === 'FULLTEXT'
        ? 'fulltext'
        : Number(row.non_unique) === 0
          ? 'unique'
          : 'normal';
    objects.set(
      objectKey.index(table, row.index_name),
      indexLine(kind, table, row.index_name, indexColumns),
    );
  }
}

/** Foreign key lines: one row per column pair, in constraint order. */
function addForeignKeys(objects: SchemaObjects, foreignKeyRows: ForeignKeyRow[]) {
  const foreignKeys = new Map<string, { row: ForeignKeyRow; from: string[]; to: string[] }>();
  for (const row of foreignKeyRows) {
    const key = `${row.table_name}\u0000${row.constraint_name}`;
    const foreignKey = foreignKeys.get(key) ?? { row, from: [], to: [] };
    foreignKey.from.push(row.column_name);
    foreignKey.to.push(row.referenced_column_name);
    foreignKeys.set(key, foreignKey);
  }
  for (const { row, from, to } of foreignKeys.values()) {
    objects.set(
      objectKey.foreignKey(row.table_name, row.constraint_name),
      foreignKeyLine(
        row.table_name,
        row.constraint_name,
        from,
        row.referenced_table_name,
        to,
        row.delete_rule,
        row.update_rule,
      ),
    );
  }
}

// Integer display widths mean nothing to the values (MySQL 8.0.19+ no longer reports them,
// MariaDB reports int(10) unsigned), except TINYINT(1), the boolean convention both keep.
function normalizeMysqlType(columnType: string): string {
  if (columnType.startsWith('tinyint(1)')) return columnType;
  return columnType.replace(/^(tinyint|smallint|mediumint|int|bigint)\(\d+\)/, '$1');
}

function mysqlColumnDefault(
  raw: string | null,
  extra: string,
  isMariaDb: boolean,
): ColumnDefault | undefined {
  if (raw === null) return undefined;
  const now = /^current_timestamp(?:\((\d*)\))?$/i.exec(raw);
  if (now !== null) return { expression: currentTimestamp(Number(now[1] || 0)) };
  if (isMariaDb) {
    // MariaDB (10.2.7+) reports a default as SQL: a quoted string, a number, NULL for "none" on
    // a nullable column, or an expression.
    if (raw === 'NULL') return undefined;
    const quoted = /^'(.*)'$/s.exec(raw);
    if (quoted !== null) return { literal: (quoted[1] ?? '').replaceAll("''", "'") };
    return /^-?\d+(\.\d+)?$/.test(raw) ? { literal: raw } : { expression: raw };
  }
  // MySQL reports a constant bare and flags an expression DEFAULT_GENERATED.
  return /DEFAULT_GENERATED/i.test(extra) ? { expression: raw } : { literal: raw };
}
