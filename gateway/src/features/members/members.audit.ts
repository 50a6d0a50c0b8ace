// The audit trail of member writes, in the API's PostgreSQL. A record holds the member's API
// fields before and after (never a secret: members carry none, and tokens or client secrets are
// never passed here). When PostgreSQL does not take it, what the log may hold of it goes there
// instead: which write, by whom, on which member and which fields it set, never their values,
// which are a member's personal data (the dashboard holds them).
import { readModelPool, type ReadModelClient } from '#common/databases.js';
import type { Logger } from '#common/logger.js';
import { Prisma as Sql } from '#prisma/generated/read-model/client.js';
import type { AuthContext } from '../../http/authenticate.js';
import type { Member } from './members.schemas.js';

export interface AuditEntry {
  auth: AuthContext;
  requestId: string;
  operation: 'create' | 'update';
  memberId: number | null;
  status: number;
  error?: string;
  idempotencyKey?: string;
  before?: Member | null;
  after?: Member | null;
  /**
   * The request's traceparent, when it is traced: the worker's spans of what the write causes
   * (the sync reading its row, its webhooks) link to it (docs/decisions/0017-traces.md).
   */
  traceParent?: string | undefined;
}

const asJson = (member: Member | null | undefined) => (member ? JSON.stringify(member) : null);

/**
 * The record's INSERT, as a plain statement: every write's answer waits for it, and the ORM's
 * create cost more than the statement itself (docs/decisions/0009-member-writes.md). Its text is
 * the same for every entry, so it is prepared once; a successful write sends it inside the read
 * model's publish (members.write.ts).
 */
export function auditStatement(entry: AuditEntry): Sql.Sql {
  return Sql.sql`INSERT INTO member_write_audit (client_id, client_key, request_id, operation,
      member_id, status, error, idempotency_key, before, after, trace_parent)
    VALUES (${entry.auth.clientId}, ${entry.auth.clientKey}, ${entry.requestId},
      ${entry.operation}, ${entry.memberId}, ${entry.status}, ${entry.error ?? null},
      ${entry.idempotencyKey ?? null}, ${asJson(entry.before)}::jsonb,
      ${asJson(entry.after)}::jsonb, ${entry.traceParent ?? null})`;
}

/** The fields a write set or changed, by name. */
function changedFields(before: Member | null | undefined, after: Member | null | undefined) {
  if (!after) return [];
  return Object.keys(after).filter(
    (field) => !before || JSON.stringify(before[field]) !== JSON.stringify(after[field]),
  );
}

/** A record PostgreSQL did not take goes to the log, without the member's values. */
export function logUnstoredAudit(logger: Logger, entry: AuditEntry, error: unknown): void {
  const audit = {
    client_id: entry.auth.clientId,
    client_key: entry.auth.clientKey,
    request_id: entry.requestId,
    operation: entry.operation,
    member_id: entry.memberId,
    status: entry.status,
    error: entry.error ?? null,
    idempotency_key: entry.idempotencyKey ?? null,
    changed_fields: changedFields(entry.before, entry.after),
  };
  logger.error({ err: error, audit }, 'member write audit not stored; logged instead');
}

export async function recordMemberWrite(
  db: ReadModelClient,
  logger: Logger,
  entry: AuditEntry,
): Promise<void> {
  const statement = auditStatement(entry);
  try {
    await readModelPool(db).query({
      name: 'record_member_write',
      text: statement.text,
      values: statement.values,
    });
  } catch (error) {
    logUnstoredAudit(logger, entry, error);
  }
}
