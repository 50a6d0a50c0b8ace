// POST /members and PUT /members/{id}. The service (members.write.ts) holds the logic; these
// declarations apply Idempotency-Key and If-Match and shape the answer.
import { fieldClasses, holds, type ClassMask } from '#api/data-classes.js';
import { memberResource } from '#api/resources/members.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { insufficientScope } from '../../http/errors.js';
import type { EndpointContext } from '../../http/endpoint.js';
import { idParams } from '../../http/filters.js';
import { IDEMPOTENCY_HEADER, idempotencyKeyOf, type StoredAnswer } from './idempotency.js';
import { memberResponse } from './members.schemas.js';
import type { WrittenMember } from './members.write.js';
import { createMemberBody, updateMemberBody } from './members.write-schemas.js';

/** Tells the caller the dashboard holds the write while the read model has yet to follow. */
export const READ_MODEL_HEADER = 'X-Read-Model';

function answerOf(status: number, written: WrittenMember): StoredAnswer {
  return {
    status,
    headers: {
      ETag: written.etag,
      ...(written.readModel === 'pending' ? { [READ_MODEL_HEADER]: 'pending' } : {}),
    },
    body: { success: true, data: written.member },
  };
}

const MEMBER_FIELD_CLASSES = fieldClasses(memberResource.schema);

/**
 * A write carrying a field of a class of personal data the client does not hold is refused
 * before anything is written: a client may not set what it may not see.
 */
function refuseUngrantedFields(body: object, classes: ClassMask) {
  for (const [field, value] of Object.entries(body)) {
    const dataClass = MEMBER_FIELD_CLASSES[field];
    if (value !== undefined && dataClass && !holds(classes, dataClass))
      throw insufficientScope(
        `Bu istemciye "${dataClass}" veri sınıfı verilmemiş: ${field} alanı yazılamaz.`,
      );
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function send(ctx: EndpointContext<unknown, any, any, any>, answer: StoredAnswer) {
  for (const [name, value] of Object.entries(answer.headers)) ctx.setHeader(name, value);
  return answer.body as { success: boolean; data: WrittenMember['member'] };
}

const WRITE_HEADERS =
  "Answers carry the member's strong `ETag`. `X-Read-Model: pending` means the dashboard holds the write but the API's read model could not take it yet; it follows within seconds.";

export const createMemberEndpoint = defineEndpoint({
  operationId: 'createMember',
  group: 'members',
  method: 'POST',
  path: '/members',
  summary: 'Üye oluşturur',
  description: `Written to the dashboard at once, numbered as the dashboard numbers members. ${WRITE_HEADERS} Optional \`Idempotency-Key\` header (1-255 characters, kept 24 hours per client): a retry with the same key and body replays the first answer; another body is 400; a retry while the first runs is 409 with \`Retry-After: 1\`. 409 DUPLICATE: a live member has the tc_no, or the phone in the same branch. A field of a data class the client does not hold (\`x-data-class\`; \`phone\` is \`contact\`) is 403 \`INSUFFICIENT_SCOPE\` naming the class, and nothing is written.`,
  access: 'members:write',
  body: createMemberBody,
  response: memberResponse,
  status: 201,
  errors: [409],
  tables: [],
  handle: async (ctx) => {
    refuseUngrantedFields(ctx.body, ctx.auth().dataClasses);
    const { memberWrites } = ctx.services;
    const key = idempotencyKeyOf(ctx.header(IDEMPOTENCY_HEADER));
    const request = {
      auth: ctx.auth(),
      requestId: ctx.requestId,
      ...(key ? { idempotencyKey: key } : {}),
    };
    const produce = async () => answerOf(201, await memberWrites.create(request, ctx.body));
    const answer = key
      ? await memberWrites.idempotency.run(request.auth.clientId, key, ctx.body, produce)
      : await produce();
    return send(ctx, answer);
  },
});

export const updateMemberEndpoint = defineEndpoint({
  operationId: 'updateMember',
  group: 'members',
  method: 'PUT',
  path: '/members/{id}',
  summary: 'Üyeyi günceller',
  description: `One or more fields; \`null\` clears an optional one; any other field is 400. ${WRITE_HEADERS} Optional \`If-Match\`: when it no longer matches the member's ETag the answer is 412 PRECONDITION_FAILED and nothing changes. Another branch's member answers 404 to a bound client.`,
  access: 'members:write',
  params: idParams,
  body: updateMemberBody,
  response: memberResponse,
  errors: [404, 409, 412],
  tables: [],
  handle: async (ctx) => {
    refuseUngrantedFields(ctx.body, ctx.auth().dataClasses);
    const ifMatch = ctx.header('if-match');
    const request = { auth: ctx.auth(), requestId: ctx.requestId, ...(ifMatch ? { ifMatch } : {}) };
    const written = await ctx.services.memberWrites.update(request, ctx.params.id, ctx.body);
    return send(ctx, answerOf(200, written));
  },
});
