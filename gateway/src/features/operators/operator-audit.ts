// The operator audit: one record per operator action, from the console or the CLI, and per
// partner action on its webhook subscriptions, from the API or the portal (who, what,
// which client, when, from where), read by the console's audit page and `npm run audit --
// --operator`; the worker deletes records older than AUDIT_RETENTION_DAYS (worker/src/retention.ts).
import { hostname, userInfo } from 'node:os';
import type { ReadModelClient } from '#common/databases.js';

export const OPERATOR_ACTIONS = [
  'clients.create',
  'clients.disable',
  'clients.enable',
  'clients.rotate-secret',
  'clients.end-previous-secret',
  'clients.revoke-tokens',
  'clients.set-scopes',
  'clients.set-limits',
  'clients.set-branch',
  'clients.grant',
  'members.recipients',
  'members.report',
  'members.erase',
  'webhooks.create',
  'webhooks.update',
  'webhooks.delete',
  'webhooks.rotate-secret',
  'webhooks.replay',
  'webhooks.test',
  'webhooks.disable',
  'webhooks.enable',
  'webhooks.reencrypt-secrets',
  'console.link',
  'console.sign-in',
  'console.sign-in-refused',
  'console.sign-out',
  'portal.link',
  'portal.links-revoked',
  'portal.sign-in',
  'portal.sign-out',
] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/**
 * Who acts, through what, from where: an operator, or a partner in its portal or through the API
 * (its own webhook subscriptions).
 */
export interface Operator {
  actor: string;
  source: 'console' | 'cli' | 'portal' | 'api';
  /** The browser's address, or the host the CLI runs on. */
  address: string | null;
}

/** The operator of a CLI command: the system user, on this host. */
export function cliOperator(): Operator {
  let actor = 'unknown';
  try {
    actor = userInfo().username;
  } catch {
    // A user with no name in the passwd database (some containers): the action is still recorded.
  }
  return { actor, source: 'cli', address: hostname() };
}

export async function recordOperatorAction(
  db: ReadModelClient,
  operator: Operator,
  action: OperatorAction,
  subject: { clientKey?: string | null; target?: string | null } = {},
): Promise<void> {
  await db.operatorAudit.create({
    data: {
      actor: operator.actor,
      source: operator.source,
      action,
      client_key: subject.clientKey ?? null,
      target: subject.target ?? null,
      address: operator.address,
    },
  });
}

export interface OperatorAuditFilter {
  clientKey?: string | undefined;
  since?: Date | undefined;
  limit: number;
}

/** Newest first. */
export function listOperatorActions(db: ReadModelClient, filter: OperatorAuditFilter) {
  return db.operatorAudit.findMany({
    where: {
      ...(filter.clientKey !== undefined ? { client_key: filter.clientKey } : {}),
      ...(filter.since !== undefined ? { at: { gte: filter.since } } : {}),
    },
    orderBy: { id: 'desc' },
    take: filter.limit,
  });
}

export type OperatorAuditRecord = Awaited<ReturnType<typeof listOperatorActions>>[number];
