// The Prisma schema's side of the legacy schema diff (legacy-schema-diff.ts): Prisma's DMMF of
// prisma/legacy/schema.prisma, with the defaults Prisma itself applies, each object made one line
// (schema-lines.ts).
import internals from '@prisma/internals';
import {
  columnLine,
  currentTimestamp,
  foreignKeyLine,
  indexLine,
  objectKey,
  primaryKeyLine,
  quote,
  type ColumnDefault,
  type SchemaObjects,
} from './schema-lines.js';

type Datamodel = Awaited<ReturnType<typeof internals.getDMMF>>['datamodel'];
type DmmfModel = Datamodel['models'][number];
type DmmfField = DmmfModel['fields'][number];

const MYSQL_IDENTIFIER_MAX = 64;
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

export async function describePrismaSchema(schema: string): Promise<SchemaObjects> {
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
