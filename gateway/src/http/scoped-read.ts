// The branch rule by construction. Handlers never see the read-model client itself: they get a
// ScopedRead, which exposes only the read operations of the API's data models and adds the
// caller's branch condition to every one of them, derived from the model's table declaration
// (api/branch-rule.ts). A model missing from DATA_MODELS cannot be reached at all.
import { branchWhere } from '#api/branch-rule.js';
import type { DataScope } from '#api/data-scope.js';
import type { SqlTable } from '#api/sql-table.js';
import { readModelPool, type ReadModelClient } from '#common/databases.js';
import { createScopedSql, type ScopedSql } from '#api/scoped-sql.js';

/** The API's data models and the synced table each reads. */
const DATA_MODELS = {
  branch: 'branches',
  member: 'members',
  memberPackage: 'member_packages',
  financialTransaction: 'financial_transactions',
  installmentPlan: 'installment_plans',
  staff: 'staff',
  notification: 'notifications',
  privateLesson: 'private_lessons',
  presenceRecord: 'presence_records',
  package: 'packages',
  marketProduct: 'market_products',
  marketCategory: 'market_categories',
} as const satisfies Record<string, SqlTable>;

type DataModel = keyof typeof DATA_MODELS;
type ReadOperation = 'findMany' | 'findFirst' | 'findUnique' | 'count' | 'aggregate' | 'groupBy';

/**
 * What a handler may do with the read model: read the data models, within its branch; `sql`
 * runs the hottest reads as prepared statements, within the same branch (scoped-sql.ts).
 */
export type ScopedRead = { readonly [M in DataModel]: Pick<ReadModelClient[M], ReadOperation> } & {
  readonly sql: ScopedSql;
};

const READ_OPERATIONS = new Set<string>([
  'findMany',
  'findFirst',
  'findUnique',
  'count',
  'aggregate',
  'groupBy',
]);
/** Prisma's model name (`Member`) -> the condition keeping its rows in `branchId`, if any. */
function branchConditions(branchId: number): Map<string, object> {
  const conditions = Object.entries(DATA_MODELS).map(([model, table]) => {
    const prismaName = model.charAt(0).toUpperCase() + model.slice(1);
    return [prismaName, branchWhere(table, branchId)] as const;
  });
  return new Map(conditions.filter((entry): entry is [string, object] => entry[1] !== null));
}

type Where = Record<string, unknown> & { AND?: unknown };

/** Adds `condition` beside whatever the query asked for; unique lookups keep their key on top. */
function withCondition(where: Where | undefined, condition: object): Where {
  const and = where?.AND;
  const existing: unknown[] =
    and === undefined ? [] : Array.isArray(and) ? (and as unknown[]) : [and];
  return { ...where, AND: [...existing, condition] };
}

function branchScoped(db: ReadModelClient, branchId: number) {
  const conditions = branchConditions(branchId);
  return db.$extends({
    name: `branch-${branchId}`,
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          const condition = conditions.get(model);
          if (!condition) return query(args);
          if (!READ_OPERATIONS.has(operation)) {
            throw new Error(`${operation} on ${model} is not a read`);
          }
          const scoped = args as { where?: Where };
          scoped.where = withCondition(scoped.where, condition);
          return query(scoped as typeof args);
        },
      },
    },
  });
}

/**
 * Only the read operations of a model, bound to its delegate. Prisma's delegate itself also
 * carries the writes and `$parent`, the whole client (tokens, raw SQL): a cast would reach them.
 */
function readOperationsOf(delegate: Record<string, unknown>) {
  const operations = [...READ_OPERATIONS].map((op) => {
    const operation = delegate[op] as (...args: unknown[]) => unknown;
    return [op, operation.bind(delegate)];
  });
  return Object.freeze(Object.fromEntries(operations) as object);
}

function toScopedRead(client: Record<DataModel, unknown>, sql: ScopedSql): ScopedRead {
  const models = Object.keys(DATA_MODELS) as DataModel[];
  const delegates = models.map((m) => [m, readOperationsOf(client[m] as Record<string, unknown>)]);
  return Object.freeze({ ...Object.fromEntries(delegates), sql }) as ScopedRead;
}

/**
 * One ScopedRead per scope, built once and kept: a Prisma extension is cheap to use but not to
 * create, and a deployment has a handful of branches.
 */
export function createScopedReads(db: ReadModelClient): (scope: DataScope) => ScopedRead {
  const sqlOf = createScopedSql(readModelPool(db));
  const all = toScopedRead(db, sqlOf({ kind: 'all-branches' }));
  const byBranch = new Map<number, ScopedRead>();
  return (scope) => {
    if (scope.kind === 'all-branches') return all;
    let read = byBranch.get(scope.branchId);
    if (!read) {
      read = toScopedRead(branchScoped(db, scope.branchId), sqlOf(scope));
      byBranch.set(scope.branchId, read);
    }
    return read;
  };
}
