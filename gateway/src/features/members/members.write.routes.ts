// POST /members and PUT /members/{id}. The service (members.write.ts) holds the logic; these
// routes parse, apply Idempotency-Key and If-Match, and shape the answer.
import { Router, type Response } from 'express';
import { authOf, type Guard } from '../../http/authenticate.js';
import { parseInput } from '../../http/validation.js';
import {
  idempotencyKeyOf,
  IDEMPOTENCY_HEADER,
  type IdempotencyStore,
  type StoredAnswer,
} from './idempotency.js';
import { createLegacyGate } from './legacy-gate.js';
import { memberIdParams } from './members.schemas.js';
import {
  createMember,
  updateMember,
  type MemberWriteDeps,
  type WrittenMember,
} from './members.write.js';
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

function send(res: Response, answer: StoredAnswer) {
  res.status(answer.status).set(answer.headers).json(answer.body);
}

const requestOf = (res: Response) => ({
  auth: authOf(res),
  requestId: res.locals.requestId as string,
});

export function memberWriteRoutes(
  writeDeps: Omit<MemberWriteDeps, 'gate'>,
  idempotency: IdempotencyStore,
  guard: Guard,
): Router {
  const router = Router();
  const deps: MemberWriteDeps = { ...writeDeps, gate: createLegacyGate() };

  router.post('/members', guard('members:write'), async (req, res) => {
    const key = idempotencyKeyOf(req.get(IDEMPOTENCY_HEADER));
    const body = parseInput(createMemberBody, req.body);
    const request = { ...requestOf(res), ...(key ? { idempotencyKey: key } : {}) };
    const produce = async () => answerOf(201, await createMember(deps, request, body));
    send(
      res,
      key ? await idempotency.run(request.auth.clientId, key, req.body, produce) : await produce(),
    );
  });

  router.put('/members/:id', guard('members:write'), async (req, res) => {
    const { id } = parseInput(memberIdParams, req.params);
    const body = parseInput(updateMemberBody, req.body);
    const ifMatch = req.get('if-match');
    const request = { ...requestOf(res), ...(ifMatch ? { ifMatch } : {}) };
    send(res, answerOf(200, await updateMember(deps, request, id, body)));
  });

  return router;
}
