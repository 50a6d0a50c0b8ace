// What the gateway holds about a member and who received it (docs/decisions/0023-data-classes.md):
// the recipients record and the data subject's report, for the CLI (`npm run members`) and the
// console alike, each asking recorded in the operator audit.
import { classesOf, type DataClass } from '#api/data-classes.js';
import { memberResource } from '#api/resources/members.js';
import type { ReadModelClient } from '#common/databases.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import { recordOperatorAction, type Operator } from '../operators/operator-audit.js';

export interface Recipient {
  client_key: string;
  classes: DataClass[];
  first_at: Date;
  last_at: Date;
}

/** A member id as the operator typed it. */
export function parseMemberId(value: string | undefined): number {
  const id = Number(value);
  if (!value || !Number.isInteger(id) || id <= 0 || id > 2_147_483_647)
    throw new OperatorRefusal(`a member id is a positive integer, got "${value ?? ''}"`, 2, {
      reason: { key: 'member-id', value: value ?? '' },
    });
  return id;
}

/** Every client that received the member's data, the first first. */
export async function recipientsOf(db: ReadModelClient, memberId: number): Promise<Recipient[]> {
  const rows = await db.$queryRaw<
    { client_key: string; classes: number; first_at: Date; last_at: Date }[]
  >`
    SELECT c.client_key, r.classes, r.first_at, r.last_at
      FROM member_recipients r JOIN api_clients c ON c.id = r.client_id
     WHERE r.member_id = ${memberId}
     ORDER BY r.first_at, c.client_key`;
  return rows.map((row) => ({ ...row, classes: classesOf(row.classes) }));
}

async function memberOf(db: ReadModelClient, memberId: number) {
  const row = await db.member.findUnique({
    where: { id: memberId },
    select: memberResource.select,
  });
  return row ? memberResource.toApi(row) : null;
}

/** The member and its recipients; a member neither held nor ever received is unknown. */
async function knownMember(db: ReadModelClient, memberId: number) {
  const [member, recipients] = await Promise.all([
    memberOf(db, memberId),
    recipientsOf(db, memberId),
  ]);
  if (!member && recipients.length === 0)
    throw new OperatorRefusal(`no member with id ${memberId}`, 1, {
      reason: { key: 'no-member', id: memberId },
    });
  return { member, recipients };
}

export async function recipientsAs(db: ReadModelClient, operator: Operator, memberId: number) {
  const { recipients } = await knownMember(db, memberId);
  await recordOperatorAction(db, operator, 'members.recipients', { target: `member ${memberId}` });
  return recipients;
}

/**
 * What the gateway holds about the member: its record as the API shows it in every class, how
 * many webhook events and member-write audit records about it are kept, and who received which
 * classes.
 */
export async function reportAs(db: ReadModelClient, operator: Operator, memberId: number) {
  const { member, recipients } = await knownMember(db, memberId);
  const [events, writes] = await Promise.all([
    db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM webhook_events
       WHERE event_type LIKE 'members.%' AND (body::jsonb #>> '{data,id}')::int = ${memberId}`,
    db.memberWriteAudit.count({ where: { member_id: memberId } }),
  ]);
  await recordOperatorAction(db, operator, 'members.report', { target: `member ${memberId}` });
  return {
    member_id: memberId,
    member,
    kept: {
      webhook_events: Number(events[0]?.n ?? 0),
      member_write_audit: writes,
    },
    recipients,
  };
}

/**
 * The report of the member an operator's search names (its id, or a member number of the read
 * model); null when it names no member known to the gateway.
 */
export async function findReportAs(db: ReadModelClient, operator: Operator, search: string) {
  const id = /^\d{1,9}$/.test(search)
    ? Number(search)
    : (await db.member.findFirst({ where: { member_no: search }, select: { id: true } }))?.id;
  if (id === undefined) return null;
  try {
    return await reportAs(db, operator, id);
  } catch (error) {
    if (error instanceof OperatorRefusal) return null;
    throw error;
  }
}
