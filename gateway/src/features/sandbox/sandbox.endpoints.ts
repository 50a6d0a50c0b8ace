// POST /sandbox/events: a sandbox client asks its club for a change of a feed type, and sees it
// arrive in its feed and at its webhooks as a live change would (docs/decisions/0024-sandbox.md).
// Under /sandbox a live client finds nothing: the same 404 as any unknown address.
import { z } from 'zod';
import { scopesRead } from '#api/changes/change-types.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { insufficientScope, notFound } from '../../http/errors.js';
import { MAX_ID } from '../../http/filters.js';
import { SIMULATED_TYPES } from './sandbox.events.js';

const eventBody = z
  .object({
    type: z.enum(SIMULATED_TYPES as [string, ...string[]]).meta({
      description: 'A change feed type (GET /changes); its read scope is needed.',
    }),
    id: z.int().min(1).max(MAX_ID).optional().meta({
      description: 'The row to change; left out, a new row of the type is made.',
    }),
  })
  .meta({ id: 'SandboxEventRequest' });

const eventResponse = z
  .object({
    success: z.boolean(),
    data: z.object({
      type: z.string(),
      id: z.int(),
      made: z.enum(['created', 'changed']),
    }),
  })
  .meta({ id: 'SandboxEventResponse' });

export const createSandboxEventEndpoint = defineEndpoint({
  operationId: 'createSandboxEvent',
  group: 'sandbox',
  method: 'POST',
  path: '/sandbox/events',
  summary: 'Deneme ortamında isteğe bağlı bir değişiklik',
  description:
    "Sandbox clients only (client_key sbx_…): makes a change of the feed type in the generated club, to row `id` or as a new row. It reaches GET /changes and the client's webhooks the way a live change does, within about 2 s. A live client gets 404 NOT_FOUND; a type outside the client's scopes 403; an unknown id 404.",
  access: null,
  body: eventBody,
  response: eventResponse,
  status: 202,
  errors: [404],
  tables: [],
  handle: async ({ body, auth, services }) => {
    if (!services.sandbox) throw notFound('İstenen adres bulunamadı.');
    if (!scopesRead(auth().scopes, body.type)) {
      throw insufficientScope(`${body.type} türü için okuma yetkiniz yok.`);
    }
    const { dataScope } = auth();
    const branchId = dataScope.kind === 'branch' ? dataScope.branchId : null;
    const made = await services.sandbox.make(body.type, body.id, branchId);
    if (!made) throw notFound('Kayıt bulunamadı.');
    return { success: true, data: made };
  },
});
