// Member writes: the legacy transaction first (the dashboard sees the change at once), then the
// same rows into the read model through the sync's own path, then the answer. If PostgreSQL
// fails after the legacy commit the write stands: the answer carries the member as mapped from
// the legacy row and `readModel: 'pending'` (header X-Read-Model: pending); the worker's next
// poll converges the read model.
import type { Redis } from 'ioredis';
import type { Config } from '../../../../common/config.js';
import type { ReadModelClient } from '../../../../common/databases.js';
import type { Logger } from '../../../../common/logger.js';
import type { LegacyRow } from '../../../../read-model/table-definition.js';
import { membersTable } from '../../../../read-model/tables/members.table.js';
import { applyRowsNow } from '../../../../read-model/apply-now.js';
import type { AuthContext } from '../../http/authenticate.js';
import { branchFilter } from '../../http/data-scope.js';
import { isDependencyDown } from '../../http/error-handler.js';
import { AppError, serviceUnavailable } from '../../http/errors.js';
import {
  auditStatement,
  logUnstoredAudit,
  recordMemberWrite,
  type AuditEntry,
} from './members.audit.js';
import { createGatewayLegacyPool, type GatewayLegacy } from './legacy-connection.js';
import {
  createLegacyMember,
  updateLegacyMember,
  type LegacyMemberWrite,
} from './members.legacy.js';
import { legacyFailure } from './legacy-failures.js';
import { createLegacyGate, type LegacyGate } from './legacy-gate.js';
import { createIdempotencyStore, type IdempotencyStore } from './idempotency.js';
import { ifMatchAccepts, mappedToMember, memberETag } from './member-version.js';
import type { Member } from './members.schemas.js';
import type { CreateMemberBody, UpdateMemberBody } from './members.write-schemas.js';

export interface MemberWriteDeps {
  legacy: GatewayLegacy;
  gate: LegacyGate;
  db: ReadModelClient;
  logger: Logger;
}

export interface WriteRequest {
  auth: AuthContext;
  requestId: string;
  idempotencyKey?: string;
}

export interface WrittenMember {
  member: Member;
  etag: string;
  /** 'pending': the legacy write committed but the read model could not take it yet. */
  readModel: 'current' | 'pending';
}

const toMember = (row: LegacyRow) => mappedToMember(membersTable.map(row));

/** Deadlocks (MySQL picks a victim) are retried: the victim's transaction wrote nothing. */
async function inLegacy(
  gate: LegacyGate,
  write: () => Promise<LegacyMemberWrite>,
): Promise<LegacyMemberWrite> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const failure = legacyFailure(error);
      if (failure === 'retry' && attempt < 4) continue;
      if (failure === 'down') gate.markDown();
      if (failure instanceof AppError) throw failure;
      if (failure === 'down') throw serviceUnavailable(2);
      throw error;
    }
  }
}

/** The answer once the read model could not take the row: the write stands, the worker follows. */
function pending(deps: MemberWriteDeps, member: Member, error: unknown): WrittenMember {
  deps.logger.warn({ err: error, member_id: member.id }, 'read model not updated after a write');
  return { member, etag: memberETag(member), readModel: 'pending' };
}

/** `member`: the answer, the same mapping of the same legacy row that the read model gets. */
async function publish(
  deps: MemberWriteDeps,
  write: LegacyMemberWrite,
  member: Member,
): Promise<WrittenMember> {
  try {
    await applyRowsNow(deps.db, membersTable, [write.after]);
    return { member, etag: memberETag(member), readModel: 'current' };
  } catch (error) {
    return pending(deps, member, error);
  }
}

/**
 * publish and the write's audit record in one statement: one trip to PostgreSQL (applyRowsNow
 * runs the record alongside). When that statement fails neither was written: with PostgreSQL
 * away the record goes to the log at once; otherwise (the read model refused the row) each is
 * tried on its own, as independent statements, so the record still reaches its table.
 */
async function publishAudited(
  deps: MemberWriteDeps,
  write: LegacyMemberWrite,
  member: Member,
  record: AuditEntry,
): Promise<WrittenMember> {
  try {
    await applyRowsNow(deps.db, membersTable, [write.after], {
      name: 'audit',
      statement: auditStatement(record),
    });
    return { member, etag: memberETag(member), readModel: 'current' };
  } catch (error) {
    if (isDependencyDown(error)) {
      logUnstoredAudit(deps.logger, record, error);
      return pending(deps, member, error);
    }
  }
  const [written] = await Promise.all([
    publish(deps, write, member),
    recordMemberWrite(deps.db, deps.logger, record),
  ]);
  return written;
}

async function audited(
  deps: MemberWriteDeps,
  entry: Omit<AuditEntry, 'status' | 'memberId'> & { memberId: number | null; status: number },
  write: () => Promise<LegacyMemberWrite>,
): Promise<WrittenMember> {
  let result: LegacyMemberWrite;
  try {
    result = await inLegacy(deps.gate, write);
  } catch (error) {
    const status = error instanceof AppError ? error.status : 500;
    const code = error instanceof AppError ? error.code : 'SERVER_ERROR';
    await recordMemberWrite(deps.db, deps.logger, { ...entry, status, error: code });
    throw error;
  }
  const after = toMember(result.after);
  return publishAudited(deps, result, after, {
    ...entry,
    memberId: result.id,
    before: result.before && toMember(result.before),
    after,
  });
}

function createMember(deps: MemberWriteDeps, request: WriteRequest, body: CreateMemberBody) {
  // A bound client naming another branch is 403 (the branch rule).
  branchFilter(request.auth.dataScope, body.branch_id);
  const entry = { ...request, operation: 'create' as const, memberId: null, status: 201 };
  return audited(deps, entry, () =>
    deps.gate.run(body.branch_id, () => createLegacyMember(deps.legacy, body)),
  );
}

function updateMember(
  deps: MemberWriteDeps,
  request: WriteRequest & { ifMatch?: string },
  id: number,
  body: UpdateMemberBody,
) {
  const { ifMatch } = request;
  const entry = { ...request, operation: 'update' as const, memberId: id, status: 200 };
  return audited(deps, entry, () =>
    deps.gate.run(null, () =>
      updateLegacyMember(deps.legacy, id, body, {
        scope: request.auth.dataScope,
        ...(ifMatch
          ? { expectVersion: (row) => ifMatchAccepts(ifMatch, memberETag(toMember(row))) }
          : {}),
      }),
    ),
  );
}

/** The member write service of one gateway instance. */
export function createMemberWrites(deps: {
  config: Config;
  db: ReadModelClient;
  redis: Redis;
  logger: Logger;
  legacy?: GatewayLegacy | undefined;
}) {
  const writeDeps: MemberWriteDeps = {
    db: deps.db,
    logger: deps.logger,
    legacy: deps.legacy ?? createGatewayLegacyPool(deps.config.legacy.url),
    gate: createLegacyGate(),
  };
  const idempotency: IdempotencyStore = createIdempotencyStore(
    deps.redis,
    deps.config.redis.prefix,
  );
  return {
    idempotency,
    create: (request: WriteRequest, body: CreateMemberBody) =>
      createMember(writeDeps, request, body),
    update: (request: WriteRequest & { ifMatch?: string }, id: number, body: UpdateMemberBody) =>
      updateMember(writeDeps, request, id, body),
  };
}

export type MemberWrites = ReturnType<typeof createMemberWrites>;
