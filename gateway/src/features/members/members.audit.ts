// The audit trail of member writes, in the API's PostgreSQL. A record holds the member's API
// fields before and after (never a secret: members carry none, and tokens or client secrets are
// never passed here). When PostgreSQL is away the record goes to the log instead, so a write
// that reached the dashboard is never lost from the trail's reach.
import type { ReadModelClient, ReadModelPrisma } from '../../../../common/databases.js';
import type { Logger } from '../../../../common/logger.js';
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
}

const asJson = (member: Member | null | undefined) =>
  (member ?? undefined) as ReadModelPrisma.InputJsonObject | undefined;

export async function recordMemberWrite(
  db: ReadModelClient,
  logger: Logger,
  entry: AuditEntry,
): Promise<void> {
  const data = {
    client_id: entry.auth.clientId,
    client_key: entry.auth.clientKey,
    request_id: entry.requestId,
    operation: entry.operation,
    member_id: entry.memberId,
    status: entry.status,
    error: entry.error ?? null,
    idempotency_key: entry.idempotencyKey ?? null,
    before: asJson(entry.before),
    after: asJson(entry.after),
  };
  try {
    await db.memberWriteAudit.create({ data });
  } catch (error) {
    logger.error({ err: error, audit: data }, 'member write audit not stored; logged instead');
  }
}
