// The lines both sides of the legacy schema diff (legacy-schema-diff.ts) are written in. Both
// sides are reduced to one line per table, column, primary key, index and foreign key, in
// the words MySQL itself uses (COLUMN_TYPE, DEFAULT ..., ON DELETE ...), keyed by table and name;
// lines that differ are the diff. What a Prisma schema cannot say is left out on both sides:
// column order, charset and collation, ON UPDATE CURRENT_TIMESTAMP, engine, comments.

/** Lines describing a schema, by a key that sorts them table by table. */
export type SchemaObjects = Map<string, string>;

export interface ColumnDefault {
  /** A constant, unquoted; rendered as a number or a quoted string by column type. */
  literal?: string;
  /** SQL evaluated on insert, such as CURRENT_TIMESTAMP. */
  expression?: string;
}

const NUMERIC_TYPE = /^(tinyint|smallint|mediumint|int|bigint|decimal|float|double)\b/;

// Keys sort a table's objects as they would appear in its CREATE TABLE.
export const objectKey = {
  table: (table: string) => `${table}\u00000`,
  column: (table: string, column: string) => `${table}\u00001${column}`,
  primaryKey: (table: string) => `${table}\u00002`,
  index: (table: string, name: string) => `${table}\u00003${name}`,
  foreignKey: (table: string, name: string) => `${table}\u00004${name}`,
};

export function columnLine(
  table: string,
  column: string,
  type: string,
  nullable: boolean,
  columnDefault: ColumnDefault | undefined,
  autoIncrement: boolean,
): string {
  let line = `column ${table}.${column} ${type} ${nullable ? 'NULL' : 'NOT NULL'}`;
  if (columnDefault?.expression !== undefined) line += ` DEFAULT ${columnDefault.expression}`;
  if (columnDefault?.literal !== undefined) {
    const value = columnDefault.literal;
    line += ` DEFAULT ${NUMERIC_TYPE.test(type) ? normalizeNumber(value) : quote(value)}`;
  }
  return autoIncrement ? `${line} AUTO_INCREMENT` : line;
}

// '0.00' (information_schema) and 0 (DMMF) are the same default.
function normalizeNumber(value: string): string {
  if (!/^-?\d+(\.\d+)?$/.test(value)) return value;
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

export function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export function currentTimestamp(precision: number): string {
  return precision > 0 ? `CURRENT_TIMESTAMP(${precision})` : 'CURRENT_TIMESTAMP';
}

// MySQL's rule: NO ACTION is RESTRICT in InnoDB, and MySQL 8 reports the unspecified action as
// NO ACTION where MariaDB reports RESTRICT.
function referentialAction(rule: string): string {
  const action = rule.toUpperCase();
  return action === 'NO ACTION' ? 'RESTRICT' : action;
}

export function foreignKeyLine(
  table: string,
  name: string,
  columns: string[],
  referencedTable: string,
  referencedColumns: string[],
  onDelete: string,
  onUpdate: string,
): string {
  return (
    `foreign key ${table}.${name} (${columns.join(', ')}) REFERENCES ${referencedTable} ` +
    `(${referencedColumns.join(', ')}) ON DELETE ${referentialAction(onDelete)} ` +
    `ON UPDATE ${referentialAction(onUpdate)}`
  );
}

export function primaryKeyLine(table: string, columns: string[]): string {
  return `primary key ${table} (${columns.join(', ')})`;
}

export function indexLine(kind: string, table: string, name: string, columns: string[]): string {
  const prefix = kind === 'normal' ? '' : `${kind} `;
  return `${prefix}index ${table}.${name} (${columns.join(', ')})`;
}
