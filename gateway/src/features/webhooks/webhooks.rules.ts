// What a client may subscribe to, checked alike when it creates a subscription and when it
// changes one (webhooks.service.ts): the feed's types its scopes read, and a target the delivery
// rules accept (api/webhooks/targets.ts).
import type { ReadModelClient } from '#common/databases.js';
import { holdKey, targetProblem, type TargetRules } from '#api/webhooks/targets.js';
import type { Credentials } from '#api/webhooks/credentials.js';
import type { DisabledReason } from '#api/webhooks/vocabulary.js';
import { insufficientScope, validationError } from '../../http/errors.js';
import { typesAsked } from '../changes/types-asked.js';

/**
 * The client a request is made for: its id, the scopes its token holds now, and the credentials
 * the token (or portal session) stands on, which a subscription it creates, moves or enables
 * records (api/webhooks/credentials.ts).
 */
export interface Caller {
  clientId: number;
  scopes: readonly string[];
  credentials: Credentials;
}

/**
 * The types asked for (by default every type the scopes read); 400 for an unknown name or none
 * left, 403 for a type outside the scopes (the change feed's rule).
 */
export function subscribedTypes(
  types: readonly string[] | undefined,
  scopes: readonly string[],
): string[] {
  const chosen = typesAsked(types, scopes);
  if (chosen.length === 0) {
    throw validationError([
      { field: 'types', message: 'İstemcinin okuma yetkisi olan bir tür yok.' },
    ]);
  }
  return chosen;
}

/** 400 naming the problem when the URL is not a target deliveries may reach. */
export async function checkTarget(url: string, rules: TargetRules): Promise<void> {
  const problem = await targetProblem(url, rules);
  if (problem) throw validationError([{ field: 'url', message: problem.reason }]);
}

/** The reason an operator's disable records; only an operator lifts it. */
export const OPERATOR: DisabledReason = 'operator';

export const targetHeld = () =>
  insufficientScope(
    'Bu adrese giden abonelik operatör tarafından devre dışı bırakıldı; yalnızca operatör yeniden etkinleştirebilir.',
  );

export type Transaction = Parameters<Parameters<ReadModelClient['$transaction']>[0]>[0];

/**
 * Whether the client may not subscribe to this URL: the operator disabled a subscription of its on
 * the same origin (or, held `--path-only`, the same endpoint: api/webhooks/targets.ts holdKey),
 * still there or deleted since (webhook_held_targets).
 */
export async function holdsTarget(tx: Transaction, owner: number, url: string): Promise<boolean> {
  const held = await tx.webhookHeldTarget.count({
    where: {
      client_id: owner,
      OR: [
        { target: holdKey(url, false), path_only: false },
        { target: holdKey(url, true), path_only: true },
      ],
    },
  });
  if (held > 0) return true;
  const disabled = await tx.webhookSubscription.findMany({
    where: { client_id: owner, disabled_reason: OPERATOR },
    select: { url: true, hold_path_only: true },
  });
  return disabled.some((s) => holdKey(s.url, s.hold_path_only) === holdKey(url, s.hold_path_only));
}
