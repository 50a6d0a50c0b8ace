// Operator actions on clients, shared by the CLI (clients.commands.ts) and the console
// (features/console/): the checks of what the operator typed, the change, and its record in the
// operator audit. A rule written here is written nowhere else.
import type { ReadModelClient } from '#common/databases.js';
import { classesOf, maskOf, type DataClass } from '#api/data-classes.js';
import type { Scope } from '#api/scopes.js';
import { clubOf, type Club } from '#api/sandbox.js';
import type { ClientEpochs } from '../../trust/client-epochs.js';
import type { ClientSecrets } from '../../trust/client-secrets.js';
import { recordOperatorAction, type Operator } from '../operators/operator-audit.js';
import { noClient, OperatorRefusal } from '../../cli/operator-refusal.js';
import { CREDENTIALS_ENDED } from '#api/webhooks/credentials.js';
import {
  createClient,
  endPreviousClientSecret,
  revokeClientTokens,
  rotateClientSecret,
  setClientActive,
  findClientByKey,
  setClientBranch,
  setClientDataClasses,
  setClientLimits,
  setClientScopes,
} from './clients.repository.js';
import {
  branchText,
  limitsText,
  parseDataClasses,
  parseLimits,
  parseScopes,
} from './clients.form.js';

export interface ClientDeps {
  db: ReadModelClient;
  /**
   * The sandbox's read model (docs/decisions/0024-sandbox.md), where a sandbox client's branch
   * must exist; absent when SANDBOX is off, and then no sandbox client is made.
   */
  sandbox?: ReadModelClient | undefined;
  epochs: ClientEpochs;
  /** How client secrets are kept (an HMAC under SECRETS_KEY, docs/decisions/0003-tokens.md). */
  secrets: ClientSecrets;
}

/** A new client as the operator typed it: scopes `a,b`, limits `M/H/D`, branch an id. */
export interface ClientForm {
  name?: string | undefined;
  scopes?: string | undefined;
  branch?: string | undefined;
  limits?: string | undefined;
  /** Classes of personal data `a,b`; none: `basic` only. */
  data?: string | undefined;
  /** A sandbox client (`sbx_` key): its tokens see the generated club only. */
  sandbox?: boolean | undefined;
}

/** A client without a scope: the create form's and set-scopes' refusal alike. */
const SCOPES_NEEDED = { reason: { key: 'scopes-needed' } } as const;

/** The read model a client of `club` reads: its branches are the ones it may be bound to. */
function readModelOf(deps: ClientDeps, club: Club): ReadModelClient {
  if (club === 'live') return deps.db;
  if (!deps.sandbox)
    throw new OperatorRefusal('the sandbox is off (SANDBOX=off)', 1, {
      reason: { key: 'sandbox-off' },
    });
  return deps.sandbox;
}

/** The branch a client is bound to, which must exist in the read model; null for all branches. */
async function existingBranch(db: ReadModelClient, value: string | undefined) {
  if (value === undefined) return null;
  const id = Number(value);
  if (!Number.isInteger(id) || id <= 0 || id > 2_147_483_647)
    throw new OperatorRefusal(`branch must be a positive integer, got "${value}"`, 2, {
      reason: { key: 'branch', value },
    });
  const branch = await db.branch.findUnique({ where: { id }, select: { id: true } });
  if (!branch) {
    throw new OperatorRefusal(
      `branch ${id} does not exist in the read model (is the worker syncing the dashboard?)`,
      1,
      { reason: { key: 'no-branch', id } },
    );
  }
  return id;
}

/** Creates a client; its secret is in the answer and nowhere else. */
export async function createClientAs(deps: ClientDeps, operator: Operator, form: ClientForm) {
  const name = form.name?.trim();
  if (!name)
    throw new OperatorRefusal('a client needs a name', 2, { reason: { key: 'name-needed' } });
  const scopes = parseScopes(form.scopes);
  if (scopes.length === 0)
    throw new OperatorRefusal('a client needs at least one scope', 2, SCOPES_NEEDED);
  const limits = form.limits ? parseLimits(form.limits) : undefined;
  const dataClasses = parseDataClasses(form.data);
  const club: Club = form.sandbox ? 'sandbox' : 'live';
  const branchId = await existingBranch(readModelOf(deps, club), form.branch);
  const created = await createClient(deps.db, deps.secrets, {
    name,
    scopes,
    branchId,
    limits,
    dataClasses,
    club,
  });
  await recordOperatorAction(deps.db, operator, 'clients.create', {
    clientKey: created.client_key,
    target: `data ${dataClasses.join(',')}`,
  });
  return {
    ...created,
    name,
    scopes,
    branch_id: branchId,
    data_classes: dataClasses,
    sandbox: club === 'sandbox',
  };
}

export const CLIENT_ACTIONS = ['disable', 'enable', 'rotate-secret', 'revoke-tokens'] as const;
export type ClientAction = (typeof CLIENT_ACTIONS)[number];

export const isClientAction = (value: string): value is ClientAction =>
  (CLIENT_ACTIONS as readonly string[]).includes(value);

/**
 * The ids of the client's webhook subscriptions disabled because the credentials that made them
 * ended (api/webhooks/credentials.ts), for the operator to look at with their partner.
 */
export async function subscriptionsOfEndedCredentials(
  db: ReadModelClient,
  clientKey: string,
): Promise<number[]> {
  const rows = await db.webhookSubscription.findMany({
    where: { client: { client_key: clientKey }, disabled_reason: CREDENTIALS_ENDED },
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  return rows.map((row) => row.id);
}

/** What a client action answers: a rotation's new secret; the subscriptions it left disabled. */
export interface ClientActionDone {
  client_secret?: string;
  /** subscriptionsOfEndedCredentials after an action that ends credentials. */
  subscriptions_disabled?: number[];
}

/**
 * Disables, enables, rotates the secret of, or ends the tokens of a client (each ending tokens
 * does so on every gateway at once: clients.repository.ts, and disables the webhook subscriptions
 * they made). Returns the new secret of a rotation.
 */
export async function applyClientAction(
  deps: ClientDeps,
  operator: Operator,
  action: ClientAction,
  clientKey: string,
): Promise<ClientActionDone> {
  const { db, epochs } = deps;
  let answer: ClientActionDone | null = {};
  switch (action) {
    case 'disable':
    case 'enable':
      if (!(await setClientActive(db, epochs, clientKey, action === 'enable'))) answer = null;
      break;
    case 'rotate-secret': {
      const rotated = await rotateClientSecret(db, epochs, deps.secrets, clientKey);
      answer = rotated === null ? null : { client_secret: rotated.clientSecret };
      break;
    }
    case 'revoke-tokens':
      if (!(await revokeClientTokens(db, epochs, clientKey))) answer = null;
      break;
  }
  if (answer === null) throw noClient(clientKey);
  await recordOperatorAction(db, operator, `clients.${action}`, { clientKey });
  if (action === 'enable') return answer;
  return {
    ...answer,
    subscriptions_disabled: await subscriptionsOfEndedCredentials(db, clientKey),
  };
}

export async function setScopesAs(
  deps: ClientDeps,
  operator: Operator,
  clientKey: string,
  value: string | undefined,
): Promise<Scope[]> {
  const scopes = parseScopes(value);
  if (scopes.length === 0) throw new OperatorRefusal('set-scopes needs KEY a,b', 2, SCOPES_NEEDED);
  if (!(await setClientScopes(deps.db, deps.epochs, clientKey, scopes))) throw noClient(clientKey);
  await recordOperatorAction(deps.db, operator, 'clients.set-scopes', { clientKey });
  return scopes;
}

/**
 * Sets the whole list of classes of personal data the client holds (`basic` alone takes every
 * personal class away); every gateway applies it to the client's live tokens within a second
 * (the client's epoch moves). The audit records the lists before and after.
 */
export async function grantDataClassesAs(
  deps: ClientDeps,
  operator: Operator,
  clientKey: string,
  value: string | undefined,
): Promise<{ before: DataClass[]; after: DataClass[] }> {
  if (value === undefined) throw new OperatorRefusal('grant needs KEY --data a,b (or basic)');
  const after = parseDataClasses(value);
  const client = await findClientByKey(deps.db, clientKey);
  if (!client || !(await setClientDataClasses(deps.db, deps.epochs, clientKey, after)))
    throw noClient(clientKey);
  const before = classesOf(maskOf(client.data_classes));
  await recordOperatorAction(deps.db, operator, 'clients.grant', {
    clientKey,
    target: `data ${before.join(',')} -> ${after.join(',')}`,
  });
  return { before, after };
}

/** Limits `M/H/D`, or `default` for the deployment's. */
export async function setLimitsAs(
  deps: ClientDeps,
  operator: Operator,
  clientKey: string,
  value: string | undefined,
): Promise<void> {
  if (!value) throw new OperatorRefusal('set-limits needs KEY M/H/D (or "default")');
  const limits = value === 'default' ? null : parseLimits(value);
  if (!(await setClientLimits(deps.db, deps.epochs, clientKey, limits))) throw noClient(clientKey);
  await recordOperatorAction(deps.db, operator, 'clients.set-limits', { clientKey });
}

/** The longest overlap a rotation may give the old secret. */
export const MAX_SECRET_OVERLAP_MS = 7 * 86_400_000;

/**
 * A rotated secret, shown once, and when the old one stops (null: it already has); the client's
 * subscriptions disabled because their credentials ended.
 */
export interface RotatedSecret {
  client_secret: string;
  previous_secret_until: Date | null;
  subscriptions_disabled: number[];
}

/**
 * Rotates a client's secret. Without `overlapMs` as rotate-secret always did: the old secret and
 * every token of the client end at once. With it, both secrets issue tokens until the overlap
 * ends; then the old one is refused and the tokens it issued end, on every gateway
 * (docs/decisions/0003-tokens.md).
 */
export async function rotateSecretAs(
  deps: ClientDeps,
  operator: Operator,
  clientKey: string,
  options: { overlapMs?: number | undefined } = {},
): Promise<RotatedSecret> {
  const { overlapMs } = options;
  if (overlapMs !== undefined && !(overlapMs > 0 && overlapMs <= MAX_SECRET_OVERLAP_MS))
    throw new OperatorRefusal('the overlap must be more than 0 and at most 7 days', 2, {
      reason: { key: 'overlap' },
    });
  const rotated = await rotateClientSecret(deps.db, deps.epochs, deps.secrets, clientKey, {
    overlapMs,
  });
  if (rotated === null) throw noClient(clientKey);
  const until = rotated.previousSecretUntil;
  await recordOperatorAction(deps.db, operator, 'clients.rotate-secret', {
    clientKey,
    target: until ? `previous secret until ${until.toISOString()}` : null,
  });
  return {
    client_secret: rotated.clientSecret,
    previous_secret_until: until,
    subscriptions_disabled: await subscriptionsOfEndedCredentials(deps.db, clientKey),
  };
}

/**
 * Ends a rotation's overlap now: the previous secret is refused and the tokens it issued end, on
 * every gateway, and the webhook subscriptions it made are disabled. A client without a previous
 * secret is left as it is. Returns subscriptionsOfEndedCredentials.
 */
export async function endPreviousSecretAs(
  deps: ClientDeps,
  operator: Operator,
  clientKey: string,
): Promise<number[]> {
  if (!(await endPreviousClientSecret(deps.db, deps.epochs, clientKey))) throw noClient(clientKey);
  await recordOperatorAction(deps.db, operator, 'clients.end-previous-secret', { clientKey });
  return subscriptionsOfEndedCredentials(deps.db, clientKey);
}

/** The console's edit of a client, each field as typed (limitsText's and branchText's forms). */
export interface ClientEdit {
  /** Scopes `a,b`. */
  scopes?: string | undefined;
  /** Classes of personal data `a,b`; missing, the classes stay as they are. */
  data?: string | undefined;
  limits: string;
  branch: string;
}

/**
 * Applies what `edit` changes of the client, each change as its own command applies and records
 * it (set-scopes, grant, set-limits, set-branch); the names of those applied. A refusal says
 * which were applied before it.
 */
export async function editClientAs(
  deps: ClientDeps,
  operator: Operator,
  clientKey: string,
  edit: ClientEdit,
): Promise<string[]> {
  const client = await findClientByKey(deps.db, clientKey);
  if (!client) throw noClient(clientKey);
  const scopes = edit.scopes ?? '';
  const changed: string[] = [];
  try {
    const data = edit.data === undefined ? null : parseDataClasses(edit.data).join(',');
    if (scopes !== client.scopes.join(',')) {
      await setScopesAs(deps, operator, clientKey, scopes);
      changed.push('scopes');
    }
    // A client under review is confirmed by saving, whether or not its classes change.
    if (data !== null && (data !== client.data_classes.join(',') || client.data_classes_review)) {
      await grantDataClassesAs(deps, operator, clientKey, data);
      changed.push('data classes');
    }
    if (edit.limits !== limitsText(client)) {
      await setLimitsAs(deps, operator, clientKey, edit.limits === '' ? 'default' : edit.limits);
      changed.push('limits');
    }
    if (edit.branch !== branchText(client)) {
      await setBranchAs(deps, operator, clientKey, edit.branch === '' ? 'all' : edit.branch);
      changed.push('branch');
    }
  } catch (error) {
    if (!(error instanceof OperatorRefusal) || changed.length === 0) throw error;
    const saved = ` (saved before it: ${changed.join(', ')})`;
    throw new OperatorRefusal(error.message + saved, error.exitCode, {
      ...error.options,
      saved: changed,
    });
  }
  return changed;
}

/**
 * Binds the client to a branch of the read model, or (`all`) to none; every gateway applies it to
 * the client's live tokens within a second (the client's epoch moves, decision 0003).
 */
export async function setBranchAs(
  deps: ClientDeps,
  operator: Operator,
  clientKey: string,
  value: string | undefined,
): Promise<number | null> {
  if (!value) throw new OperatorRefusal('set-branch needs KEY ID (or "all")');
  const branchId =
    value === 'all' ? null : await existingBranch(readModelOf(deps, clubOf(clientKey)), value);
  if (!(await setClientBranch(deps.db, deps.epochs, clientKey, branchId)))
    throw noClient(clientKey);
  await recordOperatorAction(deps.db, operator, 'clients.set-branch', { clientKey });
  return branchId;
}
