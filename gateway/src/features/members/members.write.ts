// Member writes, told once in writeMember: the legacy transaction first (the dashboard sees the
// change at once), then the same rows into the read model through the sync's own path, with the
// audit record, then the answer (header X-Read-Model: pending when the read model could not take
// the row).
import type { RedisClient } from '#common/redis.js';
import type { Config } from '#common/config.js';
import type { ReadModelClient } from '#common/databases.js';
import type { Logger } from '#common/logger.js';
import { tracing } from '#common/traces.js';
import type { LegacyRow } from '#read-model/table-definition.js';
import { membersTable } from '#read-model/tables/members.table.js';
import { applyRowsNow } from '#read-model/apply-now.js';
import type { AuthContext } from '../../http/authenticate.js';
import type { ReadRouting } from '../../http/read-routing.js';
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
  /** Keeps the write's position so the client's next reads, on any replica, see it. */
  recordWrite: (clientId: number) => Promise<void>;
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

const answer = (member: Member, readModel: WrittenMember['readModel']): WrittenMember => ({
  member,
  etag: memberETag(member),
  readModel,
});

/**
 * Every member write, in one order: the body was validated by the endpoint's schema; then the
 * legacy transaction (the dashboard's rules under MySQL's locks, deadlocks retried); then the
 * written row into the read model, by the sync's own declaration and statements, together with
 * the audit record, in one statement; then the answer, the legacy row as the read model maps it.
 * When PostgreSQL fails after the legacy commit the write stands: the answer says
 * `readModel: 'pending'` and the worker's next poll brings the row.
 */
async function writeMember(
  deps: MemberWriteDeps,
  entry: Omit<AuditEntry, 'status' | 'memberId'> & { memberId: number | null; status: number },
  legacyWrite: () => Promise<LegacyMemberWrite>,
): Promise<WrittenMember> {
  let written: LegacyMemberWrite;
  try {
    written = await inLegacy(deps.gate, legacyWrite);
  } catch (error) {
    // Refused (404, 409, 412) or the dashboard away: audited, then answered as the error.
    const status = error instanceof AppError ? error.status : 500;
    const code = error instanceof AppError ? error.code : 'SERVER_ERROR';
    await recordMemberWrite(deps.db, deps.logger, { ...entry, status, error: code });
    throw error;
  }

  const member = toMember(written.after);
  const record: AuditEntry = {
    ...entry,
    memberId: written.id,
    before: written.before && toMember(written.before),
    after: member,
    // Stored in the statement that puts the row in the read model, the worker finds it there.
    traceParent: tracing()?.traceParent(),
  };
  const audit = { name: 'audit', statement: auditStatement(record) };
  try {
    await applyRowsNow(deps.db, membersTable, [written.after], audit);
    await readYourWrite(deps, entry.auth.clientId);
    return answer(member, 'current');
  } catch (error) {
    if (isDependencyDown(error)) {
      // Neither was written: the record goes to the log at once.
      logUnstoredAudit(deps.logger, record, error);
      return pending(deps, member, error);
    }
  }
  // The read model refused the row for another reason: the record is stored on its own, and the
  // row tried once more alone.
  await recordMemberWrite(deps.db, deps.logger, record);
  try {
    await applyRowsNow(deps.db, membersTable, [written.after]);
    await readYourWrite(deps, entry.auth.clientId);
    return answer(member, 'current');
  } catch (error) {
    return pending(deps, member, error);
  }
}

/**
 * Not fatal: the write stands. Without the record the client's reads may come from a replica
 * that has not replayed it yet, for at most READ_REPLICA_MAX_LAG_MS; that is logged.
 */
async function readYourWrite(deps: MemberWriteDeps, clientId: number): Promise<void> {
  await deps.recordWrite(clientId).catch((error: unknown) => {
    deps.logger.warn({ err: error, client_id: clientId }, 'could not record a write for replicas');
  });
}

/** The answer once the read model could not take the row: the write stands, the worker follows. */
function pending(deps: MemberWriteDeps, member: Member, error: unknown): WrittenMember {
  deps.logger.warn({ err: error, member_id: member.id }, 'read model not updated after a write');
  return answer(member, 'pending');
}

function createMember(deps: MemberWriteDeps, request: WriteRequest, body: CreateMemberBody) {
  // A bound client naming another branch is 403 (the branch rule).
  branchFilter(request.auth.dataScope, body.branch_id);
  const entry = { ...request, operation: 'create' as const, memberId: null, status: 201 };
  return writeMember(deps, entry, () =>
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
  return writeMember(deps, entry, () =>
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
  redis: RedisClient;
  logger: Logger;
  legacy?: GatewayLegacy | undefined;
  reads: Pick<ReadRouting, 'recordWrite'>;
}) {
  const writeDeps: MemberWriteDeps = {
    db: deps.db,
    logger: deps.logger,
    recordWrite: (clientId) => deps.reads.recordWrite(clientId),
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
