// The branch rule by construction. Handlers never see the read-model client itself: they get a
// ScopedRead, which exposes only the read operations of the API's data models and adds the
// caller's branch condition to every one of them. Which models belong to a branch, and through
// which column, is listed once here; a model missing from both lists cannot be reached at all.
import type { DataScope } from '../../../api/data-scope.js';
import { readModelPool, type ReadModelClient } from '../../../common/databases.js';
import { createScopedSql, type ScopedSql } from '../../../api/scoped-sql.js';

/** Models owned by a branch, and the condition that keeps a bound client inside its branch. */
const BRANCH_OWNED = {
  branch: (b: number) => ({ id: b }),
  member: (b: number) => ({ branch_id: b }),
  memberPackage: (b: number) => ({ branch_id: b }),
  financialTransaction: (b: number) => ({ branch_id: b }),
  installmentPlan: (b: number) => ({ branch_id: b }),
  staff: (b: number) => ({ branch_id: b }),
  // Notifications without a branch are addressed to every branch.
  notification: (b: number) => ({ OR: [{ branch_id: null }, { branch_id: b }] }),
  // A private lesson belongs to the branch of its member (the read model keeps that branch).
  privateLesson: (b: number) => ({ branch_id: b }),
  presenceRecord: (b: number) => ({ branch_id: b }),
} as const;

/** Models that belong to no branch: every client sees all of them. */
const GLOBAL = ['package', 'marketProduct', 'marketCategory'] as const;

type BranchOwnedModel = keyof typeof BRANCH_OWNED;
type GlobalModel = (typeof GLOBAL)[number];
type DataModel = BranchOwnedModel | GlobalModel;
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
const MODEL_BY_PRISMA_NAME: Record<string, BranchOwnedModel> = Object.fromEntries(
  Object.keys(BRANCH_OWNED).map((m) => [m.charAt(0).toUpperCase() + m.slice(1), m]),
) as Record<string, BranchOwnedModel>;

type Where = Record<string, unknown> & { AND?: unknown };

/** Adds `condition` beside whatever the query asked for; unique lookups keep their key on top. */
function withCondition(where: Where | undefined, condition: object): Where {
  const and = where?.AND;
  const existing: unknown[] =
    and === undefined ? [] : Array.isArray(and) ? (and as unknown[]) : [and];
  return { ...where, AND: [...existing, condition] };
}

function branchScoped(db: ReadModelClient, branchId: number) {
  return db.$extends({
    name: `branch-${branchId}`,
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          const owned = MODEL_BY_PRISMA_NAME[model];
          if (!owned) return query(args);
          if (!READ_OPERATIONS.has(operation)) {
            throw new Error(`${operation} on ${model} is not a read`);
          }
          const scoped = args as { where?: Where };
          scoped.where = withCondition(scoped.where, BRANCH_OWNED[owned](branchId));
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
  const models = [...Object.keys(BRANCH_OWNED), ...GLOBAL] as DataModel[];
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
