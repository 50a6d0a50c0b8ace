// `npm run audit -- [--member ID] [--client KEY] [--since DATE] [--limit N] [--json]`: the audit
// trail of member writes (table member_write_audit), oldest first. One line per write: when,
// client, request id, operation, member, status, and the fields it changed (before -> after).
// With `--operator`: the operator audit instead (the console's and the CLIs' actions, table
// operator_audit), the newest --limit records, oldest first: when, who, through what, from
// where, the action and its client.
import { parseArgs } from 'node:util';
import type { ReadModelClient, ReadModelPrisma } from '#common/databases.js';
import { cliRoot } from '../gateway/src/cli-services.js';
import { escapeControls } from '../gateway/src/cli/terminal-text.js';
import { listOperatorActions } from '../gateway/src/features/operators/operator-audit.js';

class UsageError extends Error {}

function filtersOf(values: { member?: string; client?: string; since?: string }) {
  const where: ReadModelPrisma.MemberWriteAuditWhereInput = {};
  if (values.member !== undefined) {
    const id = Number(values.member);
    if (!Number.isInteger(id) || id <= 0) throw new UsageError('--member must be a positive id');
    where.member_id = id;
  }
  if (values.client !== undefined) where.client_key = values.client;
  if (values.since !== undefined) {
    const since = new Date(values.since);
    if (Number.isNaN(since.getTime()))
      throw new UsageError('--since must be a date (YYYY-MM-DD or ISO)');
    where.at = { gte: since };
  }
  return where;
}

type Fields = Record<string, unknown> | null;

/** `field: before -> after` for every field that differs. */
function changedFields(before: Fields, after: Fields): string[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: string[] = [];
  for (const key of keys) {
    const from = JSON.stringify(before?.[key] ?? null);
    const to = JSON.stringify(after?.[key] ?? null);
    if (from !== to && key !== 'updated_at')
      changes.push(`${key}: ${before ? `${from} -> ` : ''}${to}`);
  }
  return changes;
}

const { values } = parseArgs({
  options: {
    member: { type: 'string' },
    client: { type: 'string' },
    since: { type: 'string' },
    limit: { type: 'string', default: '1000' },
    json: { type: 'boolean', default: false },
    operator: { type: 'boolean', default: false },
  },
});

async function printOperatorAudit(db: ReadModelClient) {
  if (values.member !== undefined) throw new UsageError('--member does not apply to --operator');
  const where = filtersOf(values);
  const rows = (
    await listOperatorActions(db, {
      clientKey: where.client_key as string | undefined,
      since: (where.at as { gte: Date } | undefined)?.gte,
      limit: Number(values.limit) || 1000,
    })
  ).reverse();
  if (values.json) {
    console.log(
      JSON.stringify(
        rows.map((row) => ({ ...row, id: Number(row.id) })),
        null,
        2,
      ),
    );
    return;
  }
  for (const row of rows) {
    const line = [row.at.toISOString(), row.actor, row.source, row.address ?? '-', row.action];
    line.push(row.client_key ?? '-', ...(row.target ? [row.target] : []));
    console.log(escapeControls(line.join('  ')));
  }
  if (rows.length === 0) console.log('no operator actions match');
}

// The read model is the operator CLIs' (their composition root), closed with them.
const root = cliRoot();
const { db } = root.services();
try {
  if (values.operator) await printOperatorAudit(db);
  else await printMemberWrites(db);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 2;
} finally {
  await root.close();
}

async function printMemberWrites(db: ReadModelClient) {
  const rows = await db.memberWriteAudit.findMany({
    where: filtersOf(values),
    orderBy: { id: 'asc' },
    take: Number(values.limit) || 1000,
  });
  if (values.json) {
    console.log(
      JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v), 2),
    );
  } else {
    for (const row of rows) {
      const head = [row.at.toISOString(), row.client_key, row.request_id, row.operation];
      head.push(
        `member=${row.member_id ?? '-'}`,
        `${row.status}${row.error ? ` ${row.error}` : ''}`,
      );
      const changes = changedFields(row.before as Fields, row.after as Fields);
      console.log([...head, ...(changes.length > 0 ? [changes.join('; ')] : [])].join('  '));
    }
    if (rows.length === 0) console.log('no member writes match');
  }
}
