// Member writes on the dashboard's database, one transaction each, exactly as the dashboard
// writes them (legacy README, "Members"). READ COMMITTED: every duplicate check made after a
// lock sees what the previous lock holder committed.
//
// Serialisation: the branch's member_counters row, locked FOR UPDATE, orders every create and
// every phone change in one branch, which keeps the per-branch phone rule honest. The tc_no rule
// spans branches: the dump's unique index uq_members_tc_no makes a concurrent second insert or
// update of one tc_no wait for the first and then fail, which answers 409 like the check does.
// Both are enforced by MySQL itself, so they hold across any number of gateway instances.
//
// These statements go through the MariaDB driver's own pool, not the ORM: a create is one of the
// gateway's hottest paths and the ORM's per-statement cost dominated it
// (docs/decisions/0009-member-writes.md, "Cost of a write"). The driver pipelines: statements
// issued together travel together and MySQL runs them in order, so a statement issued after a
// locking read runs once the lock is held and sees what the previous holder committed.
import mariadb from 'mariadb';
import { LEGACY_SESSION_TIME_ZONE, legacyConnectionOf } from '../../../../common/databases.js';
import type { LegacyRow } from '../../../../worker/src/sync/table-definition.js';
import { membersTable } from '../../../../worker/src/sync/tables/members.table.js';
import type { DataScope } from '../../http/data-scope.js';
import { AppError, notFound, serviceUnavailable, validationError } from '../../http/errors.js';
import { formatMemberNo, generateQrCode, generateReferralCode } from './member-rules.js';
import type { CreateMemberBody, UpdateMemberBody } from './members.write-schemas.js';

/** The gateway's legacy connection: a pool of its least-privilege MySQL user, for writes only. */
export interface GatewayLegacy {
  getConnection(): Promise<mariadb.PoolConnection>;
  end(): Promise<void>;
}

/** A write that runs longer than this is abandoned: its connection is closed, MySQL rolls back. */
const TRANSACTION_LIMIT_MS = 8000;

/**
 * Short timeouts, so an unreachable or stuck MySQL answers 503 within seconds instead of holding
 * the request (the driver's defaults wait 10 s to connect, 50 s for a row lock). The pool is made
 * on the first write: the gateway starts and serves reads while MySQL is away.
 */
export function createGatewayLegacyPool(url: string): GatewayLegacy {
  const config: mariadb.PoolConfig = {
    ...legacyConnectionOf(url),
    connectionLimit: 10,
    connectTimeout: 1500,
    acquireTimeout: 2000,
    allowPublicKeyRetrieval: true,
    initSql: [
      // Istanbul wall clock, as the dashboard's own connections: NOW() and DATETIME defaults.
      `SET time_zone = '${LEGACY_SESSION_TIME_ZONE}'`,
      'SET SESSION innodb_lock_wait_timeout = 3',
      // Every transaction of this pool is a member write; set once, not per transaction.
      'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
    ],
  };
  let pool: mariadb.Pool | undefined;
  return {
    getConnection: () => (pool ??= mariadb.createPool(config)).getConnection(),
    end: async () => pool?.end(),
  };
}

type Connection = mariadb.PoolConnection;

export const duplicate = () =>
  new AppError({
    status: 409,
    code: 'DUPLICATE',
    message: 'Aynı T.C. kimlik numarasına veya bu şubede aynı telefona sahip bir üye zaten var.',
  });

export const preconditionFailed = () =>
  new AppError({
    status: 412,
    code: 'PRECONDITION_FAILED',
    message: 'Üye bu arada değişmiş; güncel sürümü okuyup yeniden deneyin.',
  });

/** One legacy row before and after a write (before is null for a create). */
export interface LegacyMemberWrite {
  id: number;
  before: LegacyRow | null;
  after: LegacyRow;
}

/**
 * Awaits statements issued together (pipelined); once all have settled, throws the first failure.
 * Waiting for all keeps a later ROLLBACK from racing statements still on the wire.
 */
async function together<T extends unknown[]>(
  ...statements: { [K in keyof T]: Promise<T[K]> }
): Promise<T> {
  const settled = await Promise.allSettled(statements);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as T;
}

/** One transaction on one pooled connection; `work` opens it (so BEGIN can travel with reads). */
async function inTransaction<T>(
  legacy: GatewayLegacy,
  work: (connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = await legacy.getConnection();
  let abandoned = false;
  const limit = setTimeout(() => {
    abandoned = true;
    connection.destroy();
  }, TRANSACTION_LIMIT_MS);
  try {
    return await work(connection);
  } catch (error) {
    if (!abandoned) await connection.rollback().catch(() => connection.destroy());
    // Abandoned: the statements failed because their connection was closed; MySQL rolls back.
    throw abandoned ? serviceUnavailable(1) : error;
  } finally {
    clearTimeout(limit);
    if (!abandoned) await connection.release().catch(() => undefined);
  }
}

const MEMBER_ROW = `${membersTable.source.sql} WHERE ${membersTable.key} = ?`;
const INSERTED_MEMBER_ROW = `${membersTable.source.sql} WHERE ${membersTable.key} = LAST_INSERT_ID()`;
const LOCK_COUNTER = 'SELECT last_no FROM member_counters WHERE branch_id = ? FOR UPDATE';

async function memberRow(connection: Connection, id: number): Promise<LegacyRow> {
  const [row] = await connection.execute<LegacyRow[]>(MEMBER_ROW, [id]);
  if (!row) throw new Error(`member ${id} vanished inside its own transaction`);
  return row;
}

/** The branch's counter row, locked; null when the branch has none yet. */
async function lockedCounter(connection: Connection, branchId: number): Promise<number | null> {
  const [counter] = await connection.execute<{ last_no: number | bigint }[]>(LOCK_COUNTER, [
    branchId,
  ]);
  return counter ? Number(counter.last_no) : null;
}

/** Creates the branch's counter row at 0; a later lockedCounter then finds and locks it. */
async function insertCounter(connection: Connection, branchId: number) {
  // A concurrent first create may insert it first: then this waits for theirs and locks it
  // exclusively (an IGNOREd duplicate would take a shared lock, and two of those deadlock).
  await connection.execute(
    `INSERT INTO member_counters (branch_id, last_no) VALUES (?, 0)
      ON DUPLICATE KEY UPDATE last_no = last_no`,
    [branchId],
  );
}

/** Locks the branch's counter row (creating it at 0 when missing); returns its last_no. */
async function lockCounter(connection: Connection, branchId: number): Promise<number> {
  const found = await lockedCounter(connection, branchId);
  if (found !== null) return found;
  await insertCounter(connection, branchId);
  const inserted = await lockedCounter(connection, branchId);
  if (inserted === null) {
    throw new Error(`member_counters row of branch ${branchId} missing after insert`);
  }
  return inserted;
}

/**
 * The dashboard's duplicate rule: a live member with this tc_no, or this phone in the branch.
 * Resolves to whether one exists; to be issued after the lock that orders the writes.
 */
function duplicateExists(
  connection: Connection,
  candidate: { id: number; branchId: number; phone?: string; tcNo?: string | null },
): Promise<boolean> {
  const checks: string[] = [];
  const values: unknown[] = [candidate.id];
  if (candidate.tcNo) {
    checks.push('tc_no = ?');
    values.push(candidate.tcNo);
  }
  if (candidate.phone) {
    checks.push('(branch_id = ? AND phone = ?)');
    values.push(candidate.branchId, candidate.phone);
  }
  if (checks.length === 0) return Promise.resolve(false);
  return connection
    .execute<unknown[]>(
      `SELECT id FROM members WHERE is_deleted = 0 AND id <> ? AND (${checks.join(' OR ')}) LIMIT 1`,
      values,
    )
    .then((found) => found.length > 0);
}

const inactiveBranch = () =>
  validationError([{ field: 'branch_id', message: 'Şube yok veya aktif değil.' }]);

export function createLegacyMember(
  legacy: GatewayLegacy,
  body: CreateMemberBody,
): Promise<LegacyMemberWrite> {
  const branchId = body.branch_id;
  const candidate = { id: 0, branchId, phone: body.phone, tcNo: body.tc_no ?? null };
  return inTransaction(legacy, async (connection) => {
    // BEGIN, the branch, the counter lock and the duplicate check travel together: MySQL runs
    // the check after the lock is held. Only reads: nothing is written if BEGIN failed.
    const [, branches, counted, checked] = await together(
      connection.beginTransaction(),
      connection.execute<{ status: string }[]>('SELECT status FROM branches WHERE id = ?', [
        branchId,
      ]),
      lockedCounter(connection, branchId),
      duplicateExists(connection, candidate),
    );
    if (branches[0]?.status !== 'Aktif') throw inactiveBranch();
    let [lastNo, exists] = [counted, checked];
    if (lastNo === null) {
      // The branch's first member: its counter row is created, then locked and checked again.
      await insertCounter(connection, branchId);
      [lastNo, exists] = await together(
        lockedCounter(connection, branchId),
        duplicateExists(connection, candidate),
      );
      if (lastNo === null) {
        throw new Error(`member_counters row of branch ${branchId} missing after insert`);
      }
    }
    if (exists) throw duplicate();
    // Codes are unique in the dump: a collision (vanishingly rare) fails this insert with a
    // duplicate key, and the whole transaction runs again with new codes (legacy-failures.ts).
    // registered_at is NOW() of a +03:00 session: Istanbul wall clock, as the dashboard writes.
    // The row is read back in the same trip; when the insert failed it is ignored (rolled back).
    const [, inserted, [after]] = await together(
      connection.execute('UPDATE member_counters SET last_no = last_no + 1 WHERE branch_id = ?', [
        branchId,
      ]),
      connection.execute<mariadb.UpsertResult>(
        `INSERT INTO members (full_name, surname, phone, email, tc_no, member_no, gender,
          birth_date, branch_id, entry_status, balance, freeze_status, status, registered_at,
          address, qr_code, referral_code)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 'Aktif', NOW(), ?, ?, ?)`,
        [
          body.full_name,
          body.surname ?? null,
          body.phone,
          body.email ?? null,
          body.tc_no ?? null,
          formatMemberNo(branchId, lastNo + 1),
          body.gender ?? null,
          body.birth_date ?? null,
          branchId,
          body.address ?? null,
          generateQrCode(),
          generateReferralCode(),
        ],
      ),
      connection.execute<LegacyRow[]>(INSERTED_MEMBER_ROW),
    );
    const id = Number(inserted.insertId);
    if (!after || Number(after.id) !== id) {
      throw new Error(`member ${id} not readable inside its own transaction`);
    }
    await connection.commit();
    return { id, before: null, after };
  });
}

export interface UpdateOptions {
  scope: DataScope;
  /** The current version must match this (If-Match), checked with the row locked. */
  expectVersion?: (row: LegacyRow) => boolean;
}

export function updateLegacyMember(
  legacy: GatewayLegacy,
  id: number,
  changes: UpdateMemberBody,
  options: UpdateOptions,
): Promise<LegacyMemberWrite> {
  return inTransaction(legacy, async (connection) => {
    const [, [located]] = await together(
      connection.beginTransaction(),
      connection.execute<{ branch_id: number | bigint }[]>(
        'SELECT branch_id FROM members WHERE id = ? AND is_deleted = 0',
        [id],
      ),
    );
    const branchId = located && Number(located.branch_id);
    const foreign = options.scope.kind === 'branch' && options.scope.branchId !== branchId;
    // Another branch's member does not exist for a bound client (404, never 403).
    if (!branchId || foreign) throw notFound('Üye bulunamadı.');
    // Counter lock first, then the member row: the same order as a create, so no deadlock.
    if (changes.phone !== undefined) await lockCounter(connection, branchId);
    const [locked, before, exists] = await together(
      connection.execute<unknown[]>(
        `SELECT id FROM members WHERE id = ? AND is_deleted = 0 AND branch_id = ? FOR UPDATE`,
        [id, branchId],
      ),
      connection.execute<LegacyRow[]>(MEMBER_ROW, [id]).then(([row]) => row),
      duplicateExists(connection, { id, branchId, phone: changes.phone, tcNo: changes.tc_no }),
    );
    if (locked.length === 0 || !before) throw notFound('Üye bulunamadı.');
    if (options.expectVersion && !options.expectVersion(before)) throw preconditionFailed();
    if (exists) throw duplicate();
    // Column names come from the strict body schema's keys only (members.write-schemas.ts).
    const entries = Object.entries(changes);
    const [, after] = await together(
      connection.execute(
        `UPDATE members SET ${entries.map(([column]) => `\`${column}\` = ?`).join(', ')} WHERE id = ?`,
        [...entries.map(([, value]) => value as unknown), id],
      ),
      memberRow(connection, id),
    );
    await connection.commit();
    return { id, before, after };
  });
}
