// The audit trail of member writes, in the API's PostgreSQL. A record holds the member's API
// fields before and after (never a secret: members carry none, and tokens or client secrets are
// never passed here). When PostgreSQL is away the record goes to the log instead, so a write
// that reached the dashboard is never lost from the trail's reach.
import { readModelPool, type ReadModelClient } from '../../../../common/databases.js';
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

// A plain prepared INSERT on the read model's pool: every write's answer waits for it, and the
// ORM's create cost more than the statement itself (docs/decisions/0009-member-writes.md).
const INSERT_AUDIT = `INSERT INTO member_write_audit (client_id, client_key, request_id, operation,
    member_id, status, error, idempotency_key, before, after)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb)`;

const asJson = (member: Member | null | undefined) => (member ? JSON.stringify(member) : null);

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
    before: entry.before ?? null,
    after: entry.after ?? null,
  };
  try {
    await readModelPool(db).query({
      name: 'record_member_write',
      text: INSERT_AUDIT,
      values: [
        data.client_id,
        data.client_key,
        data.request_id,
        data.operation,
        data.member_id,
        data.status,
        data.error,
        data.idempotency_key,
        asJson(entry.before),
        asJson(entry.after),
      ],
    });
  } catch (error) {
    logger.error({ err: error, audit: data }, 'member write audit not stored; logged instead');
  }
}
