// What differs between the legacy MySQL/MariaDB database at LEGACY_DATABASE_URL and
// prisma/legacy/schema.prisma: "-" lines describe the database, "+" lines the schema; no output
// means they match. Run: npm run legacy:diff. Prisma's schema engine cannot do this offline (its
// WebAssembly build has no MySQL connector: it panics "Unsupported adapter provider: Mysql"), so
// information_schema and Prisma's DMMF are read side by side.

import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import internals from '@prisma/internals';
import type { Connection } from 'mariadb';
import { connectLegacy, databaseName } from './legacy/legacy-database.js';

export interface LegacySchemaDiffOptions {
  /** mysql://user:password@host:port/database; only information_schema is read. */
  legacyUrl: string;
  schemaPath?: string;
}

const legacySchemaPath = fileURLToPath(new URL('../prisma/legacy/schema.prisma', import.meta.url));

// Both sides are reduced to one line per table, column, primary key, index and foreign key, in
// the words MySQL itself uses (COLUMN_TYPE, DEFAULT ..., ON DELETE ...), keyed by table and name;
// lines that differ are the diff. What a Prisma schema cannot say is left out on both sides:
// column order, charset and collation, ON UPDATE CURRENT_TIMESTAMP, engine, comments.

type Datamodel = Awaited<ReturnType<typeof internals.getDMMF>>['datamodel'];
type DmmfModel = Datamodel['models'][number];
type DmmfField = DmmfModel['fields'][number];

/** Lines describing a schema, by a key that sorts them table by table. */
type SchemaObjects = Map<string, string>;

interface ColumnDefault {
  /** A constant, unquoted; rendered as a number or a quoted string by column type. */
  literal?: string;
  /** SQL evaluated on insert, such as CURRENT_TIMESTAMP. */
  expression?: string;
}

const MYSQL_IDENTIFIER_MAX = 64;
const NUMERIC_TYPE = /^(tinyint|smallint|mediumint|int|bigint|decimal|float|double)\b/;
// Types Prisma picks when a field has no @db attribute.
const PRISMA_DEFAULT_TYPES: Record<string, string> = {
  String: 'varchar(191)',
  Boolean: 'tinyint(1)',
  Int: 'int',
  BigInt: 'bigint',
  Float: 'double',
  Decimal: 'decimal(65,30)',
  DateTime: 'datetime(3)',
  Json: 'json',
  Bytes: 'longblob',
};

/** What differs between a live MySQL/MariaDB database and a Prisma schema; '' when nothing. */
export async function legacySchemaDiff(options: LegacySchemaDiffOptions): Promise<string> {
  const schemaPath = options.schemaPath ?? legacySchemaPath;
  const [database, schema] = await Promise.all([
    describeMysqlDatabase(options.legacyUrl),
    readFile(schemaPath, 'utf8').then(describePrismaSchema),
  ]);
  return renderObjectDiff(database, schema);
}

function renderObjectDiff(database: SchemaObjects, schema: SchemaObjects): string {
  const keys = [...new Set([...database.keys(), ...schema.keys()])].sort();
  const lines: string[] = [];
  for (const key of keys) {
    const [inDatabase, inSchema] = [database.get(key), schema.get(key)];
    if (inDatabase === inSchema) continue;
    if (inDatabase !== undefined) lines.push(`- ${inDatabase}`);
    if (inSchema !== undefined) lines.push(`+ ${inSchema}`);
  }
  return lines.length === 0 ? '' : ['--- database', '+++ schema.prisma', ...lines, ''].join('\n');
}

// Keys sort a table's objects as they would appear in its CREATE TABLE.
const objectKey = {
  table: (table: string) => `${table}\u00000`,
  column: (table: string, column: string) => `${table}\u00001${column}`,
  primaryKey: (table: string) => `${table}\u00002`,
  index: (table: string, name: string) => `${table}\u00003${name}`,
  foreignKey: (table: string, name: string) => `${table}\u00004${name}`,
};

function columnLine(
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

function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function currentTimestamp(precision: number): string {
  return precision > 0 ? `CURRENT_TIMESTAMP(${precision})` : 'CURRENT_TIMESTAMP';
}

// MySQL's rule: NO ACTION is RESTRICT in InnoDB, and MySQL 8 reports the unspecified action as
// NO ACTION where MariaDB reports RESTRICT.
function referentialAction(rule: string): string {
  const action = rule.toUpperCase();
  return action === 'NO ACTION' ? 'RESTRICT' : action;
}

function foreignKeyLine(
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

async function describeMysqlDatabase(url: string): Promise<SchemaObjects> {
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

function primaryKeyLine(table: string, columns: string[]): string {
  return `primary key ${table} (${columns.join(', ')})`;
}

function indexLine(kind: string, table: string, name: string, columns: string[]): string {
  const prefix = kind === 'normal' ? '' : `${kind} `;
  return `${prefix}index ${table}.${name} (${columns.join(', ')})`;
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

async function describePrismaSchema(schema: string): Promise<SchemaObjects> {
  const { datamodel } = await internals.getDMMF({ datamodel: schema });
  const foreignKeyNames = relationConstraintNames(schema);
  const tableOf = (model: DmmfModel) => model.dbName ?? model.name;
  const modelByName = new Map(datamodel.models.map((model) => [model.name, model]));
  const columnOf = (model: DmmfModel, fieldName: string) => {
    const field = model.fields.find((f) => f.name === fieldName);
    return field?.dbName ?? fieldName;
  };

  const objects: SchemaObjects = new Map();
  for (const model of datamodel.models) {
    const table = tableOf(model);
    objects.set(objectKey.table(table), `table ${table}`);
    for (const field of model.fields) {
      if (field.kind !== 'scalar' && field.kind !== 'enum') continue;
      const column = field.dbName ?? field.name;
      const type = prismaColumnType(field, datamodel);
      objects.set(
        objectKey.column(table, column),
        columnLine(
          table,
          column,
          type,
          !field.isRequired,
          prismaColumnDefault(field, type, datamodel),
          isAutoIncrement(field),
        ),
      );
    }
    for (const field of model.fields) {
      const from = field.relationFromFields ?? [];
      const target = modelByName.get(field.type);
      if (field.kind !== 'object' || from.length === 0 || target === undefined) continue;
      const columns = from.map((name) => columnOf(model, name));
      const name =
        foreignKeyNames.get(`${model.name}.${field.name}`) ??
        defaultConstraintName(table, columns, 'fkey');
      // Prisma's defaults when @relation names no action.
      const onDelete = field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull');
      const onUpdate = field.relationOnUpdate ?? 'Cascade';
      objects.set(
        objectKey.foreignKey(table, name),
        foreignKeyLine(
          table,
          name,
          columns,
          tableOf(target),
          (field.relationToFields ?? []).map((name) => columnOf(target, name)),
          prismaReferentialAction(onDelete),
          prismaReferentialAction(onUpdate),
        ),
      );
    }
  }

  for (const index of datamodel.indexes) {
    const model = modelByName.get(index.model);
    if (model === undefined) continue;
    const table = tableOf(model);
    const columns = index.fields.map((field) => {
      const length = field.length === undefined ? '' : `(${field.length})`;
      const order = field.sortOrder === 'desc' ? ' DESC' : '';
      return `${columnOf(model, field.name)}${length}${order}`;
    });
    if (index.type === 'id') {
      objects.set(objectKey.primaryKey(table), primaryKeyLine(table, columns));
      continue;
    }
    const name =
      index.dbName ??
      defaultConstraintName(
        table,
        index.fields.map((field) => columnOf(model, field.name)),
        index.type === 'unique' ? 'key' : 'idx',
      );
    objects.set(objectKey.index(table, name), indexLine(index.type, table, name, columns));
  }
  return objects;
}

function prismaColumnType(field: DmmfField, datamodel: Datamodel): string {
  if (field.kind === 'enum') {
    const values = datamodel.enums.find((e) => e.name === field.type)?.values ?? [];
    return `enum(${values.map((value) => quote(value.dbName ?? value.name)).join(',')})`;
  }
  if (field.nativeType === null || field.nativeType === undefined) {
    return PRISMA_DEFAULT_TYPES[field.type] ?? field.type;
  }
  const [name, args] = field.nativeType;
  const unsigned = name.startsWith('Unsigned');
  const base = (unsigned ? name.slice('Unsigned'.length) : name).toLowerCase();
  // MySQL reports DATETIME(0) and the like without their default precision.
  const defaultPrecision = ['datetime', 'timestamp', 'time'].includes(base) && args[0] === '0';
  const params = args.length === 0 || defaultPrecision ? '' : `(${args.join(',')})`;
  return `${base}${params}${unsigned ? ' unsigned' : ''}`;
}

function isAutoIncrement(field: DmmfField): boolean {
  return functionDefault(field)?.name === 'autoincrement';
}

// @default(now()) and the like, as opposed to a constant.
function functionDefault(field: DmmfField) {
  const value = field.default;
  return typeof value === 'object' && 'name' in value ? value : undefined;
}

function prismaColumnDefault(
  field: DmmfField,
  type: string,
  datamodel: Datamodel,
): ColumnDefault | undefined {
  const generated = functionDefault(field);
  if (generated !== undefined) {
    switch (generated.name) {
      case 'now':
        return { expression: currentTimestamp(Number(/\((\d+)\)$/.exec(type)?.[1] ?? 0)) };
      case 'dbgenerated':
        return { expression: String(generated.args[0] ?? '') };
      default:
        // autoincrement() is AUTO_INCREMENT; uuid(), cuid() and the like are filled in by the
        // client, so the column has no default of its own.
        return undefined;
    }
  }
  const value = field.default;
  // Scalar lists (the only array defaults) do not exist in MySQL.
  if (value === undefined || typeof value === 'object') return undefined;
  if (typeof value === 'boolean') return { literal: value ? '1' : '0' };
  if (field.kind === 'enum') {
    const values = datamodel.enums.find((e) => e.name === field.type)?.values ?? [];
    const member = values.find((v) => v.name === value);
    return { literal: member?.dbName ?? String(value) };
  }
  return { literal: String(value) };
}

function prismaReferentialAction(action: string): string {
  // Cascade -> CASCADE, SetNull -> SET NULL, NoAction -> NO ACTION, ...
  return action.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
}

// Prisma's ConstraintNames: table_column1_column2_suffix, cut to fit MySQL's 64 characters.
function defaultConstraintName(table: string, columns: string[], suffix: string): string {
  const base = `${table}_${columns.join('_')}`;
  return `${base.slice(0, MYSQL_IDENTIFIER_MAX - suffix.length - 1)}_${suffix}`;
}

// DMMF carries a relation's fields and actions but not its `map:` (the foreign key's name), so
// that one is read from the schema text: `field Type @relation(..., map: "name")` in a model.
function relationConstraintNames(schema: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const [, model, body] of schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    for (const line of (body ?? '').split('\n')) {
      const relation = /^\s*(\w+)\s+\w+[?[\]]*\s.*@relation\(([^)]*)\)/.exec(line);
      const map = relation === null ? null : /\bmap:\s*"([^"]+)"/.exec(relation[2] ?? '');
      if (relation !== null && map !== null) names.set(`${model}.${relation[1]}`, map[1] ?? '');
    }
  }
  return names;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const legacyUrl = process.env.LEGACY_DATABASE_URL;
  if (!legacyUrl) throw new Error('LEGACY_DATABASE_URL is not set');
  process.stdout.write(await legacySchemaDiff({ legacyUrl }));
}
