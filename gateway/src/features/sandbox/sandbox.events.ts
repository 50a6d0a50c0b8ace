// POST /sandbox/events: a change made on demand in the sandbox's generated dashboard, as the
// dashboard itself would make it. It then travels the way a live change does (the worker's sync,
// the change feed, webhooks): nothing here writes the read model or an event, so what a partner
// sees of it is what it will see of a live change (docs/decisions/0024-sandbox.md).
import { randomInt } from 'node:crypto';
import { memberRow, random } from '#legacy-data/generate-data.js';
import { AppError, serviceUnavailable } from '../../http/errors.js';
import type { GatewayLegacy } from '../members/legacy-connection.js';
import { inTransaction, type Connection } from '../members/legacy-connection.js';
import { legacyFailure } from '../members/legacy-failures.js';
import { createLegacyMember } from '../members/members.legacy.js';

/** A change of one row by the dashboard's habits: moved in time at least a second. */
const TOUCH = 'updated_at = GREATEST(NOW(), updated_at + INTERVAL 1 SECOND)';

/** A new row's times: made now. */
const NOW_COLUMNS = new Set(['created_at', 'updated_at', 'registered_at']);

interface Simulated {
  /** The dashboard's table the feed type is synced from. */
  table: string;
  /** The SET clause of a change to an existing row: what the dashboard would change. */
  change: string;
  /** Columns a new row (a copy of the newest) may not share with it, with the value to give. */
  unique?: Record<string, string>;
  /**
   * The condition a row of branch `?` meets, for a client bound to a branch: it changes and
   * copies only its own branch's rows, as it reads only them. None: rows of no branch.
   */
  ofBranch?: string;
}

const BRANCH_ID = 'branch_id = ?';

/** For each feed type (api/changes/change-types.ts), how the sandbox makes its changes. */
const SIMULATED: Record<string, Simulated> = {
  // A member comes in or leaves: the door's entry_status flips.
  members: { table: 'members', change: 'entry_status = 1 - entry_status', ofBranch: BRANCH_ID },
  member_packages: { table: 'member_packages', change: TOUCH, ofBranch: BRANCH_ID },
  branches: { table: 'branches', change: TOUCH, ofBranch: 'id = ?' },
  packages: { table: 'packages', change: TOUCH },
  financial_transactions: { table: 'financial_transactions', change: TOUCH, ofBranch: BRANCH_ID },
  installment_plans: { table: 'installment_plans', change: TOUCH, ofBranch: BRANCH_ID },
  staff: {
    table: 'staff',
    change: 'last_login = NOW()',
    ofBranch: BRANCH_ID,
    unique: {
      username: "CONCAT('staff', FLOOR(RAND() * 1000000000))",
      email: "CONCAT('staff', FLOOR(RAND() * 1000000000), '@club.example')",
    },
  },
  // Read or unread: notifications have no updated_at, the worker's reconciliation finds it.
  notifications: { table: 'notifications', change: 'is_read = 1 - is_read', ofBranch: BRANCH_ID },
  // A lesson is its member's branch's.
  private_lessons: {
    table: 'private_lessons',
    change: TOUCH,
    ofBranch: 'member_id IN (SELECT id FROM members WHERE branch_id = ?)',
  },
  presence: { table: 'presence_logs', change: TOUCH, ofBranch: BRANCH_ID },
  // One sold.
  market_products: { table: 'market_products', change: 'stock = stock - 1' },
  market_categories: { table: 'market_categories', change: 'is_active = 1 - is_active' },
};

export const SIMULATED_TYPES = Object.keys(SIMULATED);

export interface SimulatedChange {
  type: string;
  id: number;
  /** `created`: a new row; `changed`: row `id` changed. */
  made: 'created' | 'changed';
}

export interface SandboxEvents {
  /**
   * Null when `id` names no row of the type (of `branchId`, for a client bound to it; a new row
   * of a bound client is of its branch).
   */
  make(
    type: string,
    id: number | undefined,
    branchId: number | null,
  ): Promise<SimulatedChange | null>;
}

/** The rows a client bound to `branchId` may change and copy; every row for an unbound one. */
function branchCondition(simulated: Simulated, branchId: number | null) {
  if (branchId === null || !simulated.ofBranch) return { sql: 'TRUE', values: [] as number[] };
  return { sql: simulated.ofBranch, values: [branchId] };
}

/** The columns of a dashboard table, as the server lists them (for copying a row). */
async function columnsOf(connection: Connection, table: string): Promise<string[]> {
  const rows = await connection.query<{ name: string }[]>(
    `SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = DATABASE() AND table_name = ? ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((row) => row.name);
}

/**
 * A new row: a copy of the newest one of the table, under a new id, made now. Its references
 * (member, branch, package...) are that row's, so they exist.
 */
async function copyNewest(
  connection: Connection,
  simulated: Simulated,
  branchId: number | null,
): Promise<number | null> {
  const { table } = simulated;
  const mine = branchCondition(simulated, branchId);
  const columns = (await columnsOf(connection, table)).filter((name) => name !== 'id');
  const values = columns.map((name) => {
    if (NOW_COLUMNS.has(name)) return 'NOW()';
    return simulated.unique?.[name] ?? `\`${name}\``;
  });
  const list = columns.map((name) => `\`${name}\``).join(', ');
  const result = await connection.query<{ insertId: bigint | number; affectedRows: number }>(
    `INSERT INTO \`${table}\` (${list})
     SELECT ${values.join(', ')} FROM \`${table}\` WHERE ${mine.sql} ORDER BY id DESC LIMIT 1`,
    mine.values,
  );
  return result.affectedRows === 0 ? null : Number(result.insertId);
}

/**
 * A new member drawn as the generator draws the club's members, created the way POST /members
 * creates one (members.legacy.ts: the branch's counter locked, the duplicate rule, the codes), so
 * simulated members made at once never take the same id or number.
 */
async function newMember(legacy: GatewayLegacy, bound: number | null): Promise<number> {
  const connection = await legacy.getConnection();
  const branches = await connection
    .query<{ id: number }[]>("SELECT id FROM branches WHERE status = 'Aktif'")
    .finally(() => connection.release());
  // The generator draws a member's phone, e-mail and tc_no from its number: a random one here,
  // and a duplicate of an existing member is drawn again (madeRetrying).
  const seed = randomInt(1, 10_000_000);
  const rnd = random(seed);
  const branchId = bound ?? (branches.length > 0 ? rnd.pick(branches).id : 1);
  const row = memberRow(rnd, new Date(), { id: seed, branchId, no: 0 });
  const written = await createLegacyMember(legacy, {
    full_name: row.full_name,
    phone: row.phone,
    branch_id: branchId,
    ...(row.surname !== null && { surname: row.surname }),
    ...(row.email !== null && { email: row.email }),
    ...(row.tc_no !== null && { tc_no: row.tc_no }),
    gender: row.gender,
    birth_date: row.birth_date,
    address: row.address,
  });
  return written.id;
}

/**
 * A partner's suite fires changes in parallel: a deadlock victim (copies lock the newest rows)
 * and a drawn member that duplicates another are made again, as member writes retry theirs.
 */
async function madeRetrying<T>(make: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await make();
    } catch (error) {
      const failure = legacyFailure(error);
      const again = failure === 'retry' || (failure instanceof AppError && failure.status === 409);
      if (again && attempt < 5) continue;
      if (failure instanceof AppError) throw failure;
      if (failure === 'down') throw serviceUnavailable(2);
      throw error;
    }
  }
}

export function createSandboxEvents(club: { legacy: GatewayLegacy }): SandboxEvents {
  return {
    make(type, id, branchId) {
      const simulated = SIMULATED[type];
      if (!simulated) throw new Error(`not a simulated type: ${type}`);
      if (type === 'members' && id === undefined) {
        return madeRetrying(async () => ({
          type,
          id: await newMember(club.legacy, branchId),
          made: 'created' as const,
        }));
      }
      return madeRetrying(() =>
        inTransaction(club.legacy, async (connection) => {
          await connection.beginTransaction();
          let made: SimulatedChange | null = null;
          if (id !== undefined) {
            const mine = branchCondition(simulated, branchId);
            const result = await connection.query<{ affectedRows: number }>(
              `UPDATE \`${simulated.table}\` SET ${simulated.change} WHERE id = ? AND ${mine.sql}`,
              [id, ...mine.values],
            );
            if (result.affectedRows > 0) made = { type, id, made: 'changed' };
          } else {
            const created = await copyNewest(connection, simulated, branchId);
            if (created !== null) made = { type, id: created, made: 'created' };
          }
          await connection.commit();
          return made;
        }),
      );
    },
  };
}
