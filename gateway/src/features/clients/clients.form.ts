// What an operator types for a client (scopes `a,b`, classes `a,b`, limits `M/H/D`, a branch
// id), read into its values with a refusal naming the mistake, and a client's values shown back
// in the same forms, for the CLI (clients.commands.ts) and the console's edit page alike.
import {
  classesOf,
  DATA_CLASSES,
  maskOf,
  parseClassList,
  type DataClass,
} from '#api/data-classes.js';
import { isScope, SCOPES, type Scope } from '#api/scopes.js';
import { OperatorRefusal } from '../../cli/operator-refusal.js';
import type { ApiClientRecord, ClientLimits } from './clients.repository.js';

export function parseScopes(value: string | undefined): Scope[] {
  const names = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0)
    throw new OperatorRefusal(
      `unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`,
      2,
      { reason: { key: 'unknown-scopes', unknown, known: SCOPES } },
    );
  return names as Scope[];
}

/** The classes `a,b` names, with `basic` (which every client holds), in the list's order. */
export function parseDataClasses(value: string | undefined): DataClass[] {
  const { classes, unknown } = parseClassList(value ?? '');
  if (unknown.length > 0)
    throw new OperatorRefusal(
      `unknown data class(es): ${unknown.join(', ')}; known: ${DATA_CLASSES.join(', ')}`,
      2,
      { reason: { key: 'unknown-classes', unknown, known: DATA_CLASSES } },
    );
  return classesOf(maskOf(classes));
}

export function parseLimits(value: string): ClientLimits {
  const match = /^(\d+)\/(\d+)\/(\d+)$/.exec(value);
  const [minute, hour, day] = match ? match.slice(1).map(Number) : [];
  if (!minute || !hour || !day)
    throw new OperatorRefusal(
      `limits must be MINUTE/HOUR/DAY positive integers, got "${value}"`,
      2,
      { reason: { key: 'limits', value } },
    );
  return { minute, hour, day };
}

/** A client's limits as the operator types them: `M/H/D`, '' for the deployment's defaults. */
export const limitsText = (
  c: Pick<ApiClientRecord, 'rate_limit_minute' | 'rate_limit_hour' | 'rate_limit_day'>,
) =>
  c.rate_limit_minute === null
    ? ''
    : `${c.rate_limit_minute}/${c.rate_limit_hour}/${c.rate_limit_day}`;

/** A client's branch as the operator types it: its id, '' for every branch. */
export const branchText = (c: Pick<ApiClientRecord, 'branch_id'>) =>
  c.branch_id === null ? '' : String(c.branch_id);
