// Member writes on the dashboard's database, one transaction each, exactly as the dashboard
// writes them (legacy README, "Members"). READ COMMITTED: every duplicate check made after a
// lock sees what the previous lock holder committed.
//
// Serialisation: the branch's member_counters row, locked FOR UPDATE, orders every create and
// every phone change in one branch, which keeps the per-branch phone rule honest. The tc_no rule
// spans branches: the dump's unique index uq_members_tc_no makes a concurrent second insert or
// update of one tc_no wait for the first and then fail, which answers 409 like the check does.
// Both are enforced by MySQL itself, so they hold across any number of gateway instances.
import { Prisma as Sql } from '../../../../prisma/generated/legacy/client.js';
import { createLegacyClient, type LegacyClient } from '../../../../common/databases.js';
import type { LegacyRow } from '../../../../worker/src/sync/table-definition.js';
import { membersTable } from '../../../../worker/src/sync/tables/members.table.js';
import { readLegacyRows } from '../../../../worker/src/sync/sync-rows.js';
import type { DataScope } from '../../http/data-scope.js';
import { AppError, notFound, validationError } from '../../http/errors.js';
import { formatMemberNo, generateQrCode, generateReferralCode } from './member-rules.js';
import type { CreateMemberBody, UpdateMemberBody } from './members.write-schemas.js';

/**
 * The gateway's legacy connection: short timeouts, so an unreachable or stuck MySQL answers 503
 * within seconds instead of holding the request (the driver's defaults wait 10 s and 50 s).
 */
export function createGatewayLegacyClient(url: string): LegacyClient {
  return createLegacyClient(url, {
    poolSize: 10,
    connectTimeoutMs: 1500,
    acquireTimeoutMs: 2000,
    lockWaitTimeoutSeconds: 3,
  });
}

type LegacyTx = Parameters<Parameters<LegacyClient['$transaction']>[0]>[0];

const TX_OPTIONS = {
  isolationLevel: Sql.TransactionIsolationLevel.ReadCommitted,
  maxWait: 3000,
  timeout: 8000,
};

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

async function memberRow(tx: LegacyTx, id: number): Promise<LegacyRow> {
  const [row] = await readLegacyRows(tx, membersTable, [id]);
  if (!row) throw new Error(`member ${id} vanished inside its own transaction`);
  return row;
}

async function requireActiveBranch(tx: LegacyTx, branchId: number) {
  const [branch] = await tx.$queryRaw<{ status: string }[]>`
    SELECT status FROM branches WHERE id = ${branchId}`;
  if (branch?.status !== 'Aktif') {
    throw validationError([{ field: 'branch_id', message: 'Şube yok veya aktif değil.' }]);
  }
}

/** Locks the branch's counter row (creating it at 0 when missing); returns its last_no. */
async function lockCounter(tx: LegacyTx, branchId: number): Promise<number> {
  const select = () => tx.$queryRaw<{ last_no: number | bigint }[]>`
    SELECT last_no FROM member_counters WHERE branch_id = ${branchId} FOR UPDATE`;
  let [counter] = await select();
  if (!counter) {
    // A concurrent first create may insert it first: then this waits for theirs and locks it
    // exclusively (an IGNOREd duplicate would take a shared lock, and two of those deadlock).
    await tx.$executeRaw`INSERT INTO member_counters (branch_id, last_no) VALUES (${branchId}, 0)
      ON DUPLICATE KEY UPDATE last_no = last_no`;
    [counter] = await select();
  }
  if (!counter) throw new Error(`member_counters row of branch ${branchId} missing after insert`);
  return Number(counter.last_no);
}

/** The dashboard's duplicate rule: a live member with this tc_no, or this phone in the branch. */
async function assertNoDuplicate(
  tx: LegacyTx,
  candidate: { id: number; branchId: number; phone?: string; tcNo?: string | null },
) {
  const checks: Sql.Sql[] = [];
  if (candidate.tcNo) checks.push(Sql.sql`tc_no = ${candidate.tcNo}`);
  if (candidate.phone)
    checks.push(Sql.sql`(branch_id = ${candidate.branchId} AND phone = ${candidate.phone})`);
  if (checks.length === 0) return;
  const found = await tx.$queryRaw<unknown[]>`SELECT id FROM members
    WHERE is_deleted = 0 AND id <> ${candidate.id} AND (${Sql.join(checks, ' OR ')}) LIMIT 1`;
  if (found.length > 0) throw duplicate();
}

async function insertMember(tx: LegacyTx, body: CreateMemberBody, memberNo: string) {
  // Codes are unique in the dump: a collision (vanishingly rare) fails this insert with a
  // duplicate key, and the whole transaction runs again with new codes (legacy-failures.ts).
  // registered_at is NOW() of a +03:00 session: Istanbul wall clock, as the dashboard writes.
  await tx.$executeRaw`INSERT INTO members (full_name, surname, phone, email, tc_no, member_no,
      gender, birth_date, branch_id, entry_status, balance, freeze_status, status,
      registered_at, address, qr_code, referral_code)
    VALUES (${body.full_name}, ${body.surname ?? null}, ${body.phone}, ${body.email ?? null},
      ${body.tc_no ?? null}, ${memberNo}, ${body.gender ?? null}, ${body.birth_date ?? null},
      ${body.branch_id}, 0, 0, 0, 'Aktif', NOW(), ${body.address ?? null},
      ${generateQrCode()}, ${generateReferralCode()})`;
  const [inserted] = await tx.$queryRaw<{ id: bigint | number }[]>`SELECT LAST_INSERT_ID() AS id`;
  return Number(inserted!.id);
}

export async function createLegacyMember(
  legacy: LegacyClient,
  body: CreateMemberBody,
): Promise<LegacyMemberWrite> {
  return legacy.$transaction(async (tx) => {
    await requireActiveBranch(tx, body.branch_id);
    const lastNo = await lockCounter(tx, body.branch_id);
    await assertNoDuplicate(tx, {
      id: 0,
      branchId: body.branch_id,
      phone: body.phone,
      tcNo: body.tc_no ?? null,
    });
    const counter = lastNo + 1;
    await tx.$executeRaw`UPDATE member_counters SET last_no = last_no + 1
      WHERE branch_id = ${body.branch_id}`;
    const id = await insertMember(tx, body, formatMemberNo(body.branch_id, counter));
    return { id, before: null, after: await memberRow(tx, id) };
  }, TX_OPTIONS);
}

export interface UpdateOptions {
  scope: DataScope;
  /** The current version must match this (If-Match), checked with the row locked. */
  expectVersion?: (row: LegacyRow) => boolean;
}

export async function updateLegacyMember(
  legacy: LegacyClient,
  id: number,
  changes: UpdateMemberBody,
  options: UpdateOptions,
): Promise<LegacyMemberWrite> {
  return legacy.$transaction(async (tx) => {
    const [located] = await tx.$queryRaw<{ branch_id: number | bigint }[]>`
      SELECT branch_id FROM members WHERE id = ${id} AND is_deleted = 0`;
    const branchId = located && Number(located.branch_id);
    const foreign = options.scope.kind === 'branch' && options.scope.branchId !== branchId;
    // Another branch's member does not exist for a bound client (404, never 403).
    if (!branchId || foreign) throw notFound('Üye bulunamadı.');
    // Counter lock first, then the member row: the same order as a create, so no deadlock.
    if (changes.phone !== undefined) await lockCounter(tx, branchId);
    const locked = await tx.$queryRaw<unknown[]>`
      SELECT id FROM members WHERE id = ${id} AND is_deleted = 0 AND branch_id = ${branchId}
      FOR UPDATE`;
    if (locked.length === 0) throw notFound('Üye bulunamadı.');
    const before = await memberRow(tx, id);
    if (options.expectVersion && !options.expectVersion(before)) throw preconditionFailed();
    await assertNoDuplicate(tx, { id, branchId, phone: changes.phone, tcNo: changes.tc_no });
    // Column names come from the strict body schema's keys only (members.write-schemas.ts).
    const assignments = Object.entries(changes).map(
      ([column, value]) => Sql.sql`${Sql.raw(column)} = ${value}`,
    );
    await tx.$executeRaw`UPDATE members SET ${Sql.join(assignments)} WHERE id = ${id}`;
    return { id, before, after: await memberRow(tx, id) };
  }, TX_OPTIONS);
}
