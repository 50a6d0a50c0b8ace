// A client subscribes to webhooks, from the API (POST /webhooks) or the portal alike: the types
// follow its scopes, the target must pass the rules (ports, https, public addresses), and the
// service keeps the caps and the operator's held targets.
import { targetProblem } from '../../../../api/webhooks/targets.js';
import type { EndpointServices } from '../../endpoint-services.js';
import { validationError } from '../../http/errors.js';
import { typesAsked } from '../changes/changes.endpoints.js';

export type WebhookServices = EndpointServices['webhooks'];

export interface SubscribeInput {
  url: string;
  /** Absent: every type the caller's scopes allow. */
  types?: string[] | undefined;
  description?: string | undefined;
}

/** The new subscription with its secret, which is shown this once. */
export async function subscribe(
  webhooks: WebhookServices,
  caller: { clientId: number; scopes: readonly string[] },
  input: SubscribeInput,
) {
  const types = typesAsked(input.types, caller.scopes);
  if (types.length === 0) {
    throw validationError([
      { field: 'types', message: 'İstemcinin okuma yetkisi olan bir tür yok.' },
    ]);
  }
  const problem = await targetProblem(input.url, webhooks.targets);
  if (problem) throw validationError([{ field: 'url', message: problem.reason }]);
  return webhooks.service.create(caller.clientId, {
    url: input.url,
    types,
    description: input.description ?? null,
  });
}
