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
// (docs/decisions/0009-member-writes.md, "Cost of a write"). They travel in groups, each group
// one query (legacy-connection.ts): MySQL runs a group in order, so a check sent after a locking
// read runs once the lock is held and sees what the previous holder committed, and a failing
// statement stops its group, so a COMMIT at a group's end runs only when all before it succeeded.
import type * as mariadb from 'mariadb';
import { legacySource, type LegacyRow } from '#read-model/table-definition.js';
import { membersTable } from '#read-model/tables/members.table.js';
import type { DataScope } from '#api/data-scope.js';
import { AppError, notFound, validationError } from '../../http/errors.js';
import {
  change,
  inOneTrip,
  inTransaction,
  rows,
  type Connection,
  type GatewayLegacy,
  type Statement,
} from './legacy-connection.js';
import { formatMemberNo, generateQrCode, generateReferralCode } from './member-rules.js';
import type { CreateMemberBody, UpdateMemberBody } from './members.write-schemas.js';

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

const BEGIN = change('START TRANSACTION');
const COMMIT = change('COMMIT');
const MEMBER_SOURCE = legacySource(membersTable).sql;
const MEMBER_ROW = `${MEMBER_SOURCE} WHERE ${membersTable.key} = ?`;
const INSERTED_MEMBER_ROW = `${MEMBER_SOURCE} WHERE ${membersTable.key} = LAST_INSERT_ID()`;

/** The branch's counter row, locked; no row when the branch has none yet. */
const lockCounter = (branchId: number) =>
  rows<{ last_no: number | bigint }>(
    'SELECT last_no FROM member_counters WHERE branch_id = ? FOR UPDATE',
    [branchId],
  );

/**
 * Creates the branch's counter row at 0; a lockCounter after it then finds and locks it. A
 * concurrent first create may insert it first: then this waits for theirs and locks it
 * exclusively (an IGNOREd duplicate would take a shared lock, and two of those deadlock).
 */
const insertCounter = (branchId: number) =>
  change(
    `INSERT INTO member_counters (branch_id, last_no) VALUES (?, 0)
      ON DUPLICATE KEY UPDATE last_no = last_no`,
    [branchId],
  );

const lastNoOf = ([counter]: { last_no: number | bigint }[]) =>
  counter ? Number(counter.last_no) : null;

const counterMissing = (branchId: number) =>
  new Error(`member_counters row of branch ${branchId} missing after insert`);

/** Locks the branch's counter row, creating it at 0 when missing. */
async function lockedCounter(connection: Connection, branchId: number): Promise<void> {
  const [found] = await inOneTrip<[{ last_no: number | bigint }[]]>(
    connection,
    lockCounter(branchId),
  );
  if (lastNoOf(found) !== null) return;
  const [, inserted] = await inOneTrip<[mariadb.UpsertResult, { last_no: number | bigint }[]]>(
    connection,
    insertCounter(branchId),
    lockCounter(branchId),
  );
  if (lastNoOf(inserted) === null) throw counterMissing(branchId);
}

/**
 * The dashboard's duplicate rule: a live member with this tc_no, or this phone in the branch.
 * Answers a row when one exists; to be sent after the lock that orders the writes.
 */
function duplicateCheck(candidate: {
  id: number;
  branchId: number;
  phone?: string | undefined;
  tcNo?: string | null | undefined;
}): Statement<unknown[]> {
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
  // Nothing to compare: a statement that finds nothing keeps the trip's shape.
  if (checks.length === 0) return rows('SELECT 1 FROM DUAL WHERE FALSE');
  return rows(
    `SELECT id FROM members WHERE is_deleted = 0 AND id <> ? AND (${checks.join(' OR ')}) LIMIT 1`,
    values,
  );
}

const inactiveBranch = () =>
  validationError([{ field: 'branch_id', message: 'Şube yok veya aktif değil.' }]);

type Counted = [{ last_no: number | bigint }[], unknown[]];

export function createLegacyMember(
  legacy: GatewayLegacy,
  body: CreateMemberBody,
): Promise<LegacyMemberWrite> {
  const branchId = body.branch_id;
  const check = duplicateCheck({ id: 0, branchId, phone: body.phone, tcNo: body.tc_no ?? null });
  return inTransaction(legacy, async (connection) => {
    // The first trip only reads (and locks): MySQL runs the duplicate check after the lock is
    // held, so it sees what the previous holder committed.
    const [, branches, ...first] = await inOneTrip<[unknown, { status: string }[], ...Counted]>(
      connection,
      BEGIN,
      rows('SELECT status FROM branches WHERE id = ?', [branchId]),
      lockCounter(branchId),
      check,
    );
    if (branches[0]?.status !== 'Aktif') throw inactiveBranch();
    let [counter, found] = first;
    if (lastNoOf(counter) === null) {
      // The branch's first member: its counter row is created, then locked and checked again.
      [, counter, found] = await inOneTrip<[unknown, ...Counted]>(
        connection,
        insertCounter(branchId),
        lockCounter(branchId),
        check,
      );
    }
    const lastNo = lastNoOf(counter);
    if (lastNo === null) throw counterMissing(branchId);
    if (found.length > 0) throw duplicate();
    // Codes are unique in the dump: a collision (vanishingly rare) fails the insert with a
    // duplicate key, and the whole transaction runs again with new codes (legacy-failures.ts).
    // registered_at is NOW() of a +03:00 session: Istanbul wall clock, as the dashboard writes.
    // The counter update, the insert, the read-back and the COMMIT travel together: a failing
    // insert (a duplicate key) stops the trip before the COMMIT, and the transaction, counter
    // update included, is rolled back (inTransaction).
    const [, inserted, [after]] = await inOneTrip<
      [unknown, mariadb.UpsertResult, LegacyRow[], unknown]
    >(
      connection,
      change('UPDATE member_counters SET last_no = last_no + 1 WHERE branch_id = ?', [branchId]),
      change(
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
      rows<LegacyRow>(INSERTED_MEMBER_ROW),
      COMMIT,
    );
    const id = Number(inserted.insertId);
    // The insert succeeded, so its own session reads it back by LAST_INSERT_ID(): never fails.
    if (!after || Number(after.id) !== id) {
      throw new Error(`member ${id} not readable inside its own transaction`);
    }
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
    const [, [located]] = await inOneTrip<[unknown, { branch_id: number | bigint }[]]>(
      connection,
      BEGIN,
      rows('SELECT branch_id FROM members WHERE id = ? AND is_deleted = 0', [id]),
    );
    const branchId = located && Number(located.branch_id);
    const foreign = options.scope.kind === 'branch' && options.scope.branchId !== branchId;
    // Another branch's member does not exist for a bound client (404, never 403).
    if (!branchId || foreign) throw notFound('Üye bulunamadı.');
    // Counter lock first, then the member row: the same order as a create, so no deadlock.
    if (changes.phone !== undefined) await lockedCounter(connection, branchId);
    const [locked, [before], found] = await inOneTrip<[unknown[], LegacyRow[], unknown[]]>(
      connection,
      rows(`SELECT id FROM members WHERE id = ? AND is_deleted = 0 AND branch_id = ? FOR UPDATE`, [
        id,
        branchId,
      ]),
      rows<LegacyRow>(MEMBER_ROW, [id]),
      duplicateCheck({ id, branchId, phone: changes.phone, tcNo: changes.tc_no }),
    );
    if (locked.length === 0 || !before) throw notFound('Üye bulunamadı.');
    if (options.expectVersion && !options.expectVersion(before)) throw preconditionFailed();
    if (found.length > 0) throw duplicate();
    // Column names come from the strict body schema's keys only (members.write-schemas.ts). A
    // failing UPDATE (a duplicate tc_no) stops the trip before the COMMIT.
    const entries = Object.entries(changes);
    const [, [after]] = await inOneTrip<[unknown, LegacyRow[], unknown]>(
      connection,
      change(
        `UPDATE members SET ${entries.map(([column]) => `\`${column}\` = ?`).join(', ')} WHERE id = ?`,
        [...entries.map(([, value]) => value as unknown), id],
      ),
      rows<LegacyRow>(MEMBER_ROW, [id]),
      COMMIT,
    );
    if (!after) throw new Error(`member ${id} vanished inside its own transaction`);
    return { id, before, after };
  });
}

/**
 * The values an erasure leaves in a member's legacy row (docs/decisions/0023-data-classes.md,
 * "Erasure"): the personal fields replaced, `is_deleted` set; id, member_no, branch, packages
 * and transactions stay, the club's books.
 */
export const erasedValues = (id: number) => ({
  full_name: 'Silinmiş Üye',
  phone: '00000000000',
  qr_code: `ERASED-${id}`,
  surname: null,
  email: null,
  tc_no: null,
  gender: null,
  birth_date: null,
  address: null,
  referral_code: null,
});

export interface LegacyErasure {
  /** The row as the sync reads it, after the erasure. */
  after: LegacyRow;
  /** The row already held the erased values: an earlier erasure committed it. */
  already: boolean;
}

/**
 * Erases member `id` in one legacy transaction, its row locked: all of it or none. Null when no
 * such member exists. An erased row is left as it is (a retry of an erasure whose later steps
 * failed finds it so and goes on with them).
 */
export function eraseLegacyMember(
  legacy: GatewayLegacy,
  id: number,
): Promise<LegacyErasure | null> {
  return inTransaction(legacy, async (connection) => {
    const [, [locked]] = await inOneTrip<[unknown, { qr_code: string; is_deleted: number }[]]>(
      connection,
      BEGIN,
      rows('SELECT qr_code, is_deleted FROM members WHERE id = ? FOR UPDATE', [id]),
    );
    if (!locked) {
      await inOneTrip(connection, change('ROLLBACK'));
      return null;
    }
    const values = erasedValues(id);
    const already = locked.qr_code === values.qr_code && Number(locked.is_deleted) === 1;
    const entries = Object.entries(values);
    const [, [after]] = await inOneTrip<[unknown, LegacyRow[], unknown]>(
      connection,
      change(
        `UPDATE members SET ${entries.map(([column]) => `\`${column}\` = ?`).join(', ')},
           is_deleted = 1 WHERE id = ?`,
        [...entries.map(([, value]) => value), id],
      ),
      rows<LegacyRow>(MEMBER_ROW, [id]),
      COMMIT,
    );
    if (!after) throw new Error(`member ${id} vanished inside its own transaction`);
    return { after, already };
  });
}
