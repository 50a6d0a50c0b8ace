// The change types a caller asks for, by the feed (GET /changes) and by webhook subscriptions
// alike: named ones checked against the caller's scopes, or every type they allow.
import { changeTypeNamed, TYPE_NAMES, typesRead } from '#api/changes/change-types.js';
import { insufficientScope, validationError } from '../../http/errors.js';

/**
 * The types asked for, each allowed by the caller's scopes; by default every type they allow,
 * which may be none (the feed is then empty).
 */
export function typesAsked(
  types: readonly string[] | undefined,
  scopes: readonly string[],
): string[] {
  if (types === undefined) return typesRead(scopes);
  const named = [...new Set(types)];
  const unknown = named.filter((type) => !changeTypeNamed(type));
  if (unknown.length > 0) {
    throw validationError([
      {
        field: 'types',
        message: `Bilinmeyen tür: ${unknown.join(', ')}. Türler: ${TYPE_NAMES.join(', ')}.`,
      },
    ]);
  }
  if (typesRead(scopes, named).length < named.length) throw insufficientScope();
  return named;
}
