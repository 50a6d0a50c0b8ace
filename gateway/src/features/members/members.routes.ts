import { Router } from 'express';
import type { ReadModelClient } from '../../../../common/databases.js';
import { authOf, type Guard } from '../../http/authenticate.js';
import { dataAge } from '../../http/data-age.js';
import { notFound } from '../../http/errors.js';
import { paginationOf } from '../../http/pagination.js';
import { parseInput } from '../../http/validation.js';
import { memberETag } from './member-version.js';
import { findMember, listMembers } from './members.read.js';
import { listMembersQuery, memberIdParams } from './members.schemas.js';

const MEMBER_TABLES = ['members', 'branches'];

export function memberRoutes(db: ReadModelClient, guard: Guard): Router {
  const router = Router();

  router.get('/members', guard('members:list'), dataAge(db, MEMBER_TABLES), async (req, res) => {
    const query = parseInput(listMembersQuery, req.query);
    const { members, total } = await listMembers(db, authOf(res).dataScope, query);
    res.json({ success: true, data: members, pagination: paginationOf(query, total) });
  });

  router.get(
    '/members/:id',
    guard('members:read'),
    dataAge(db, MEMBER_TABLES),
    async (req, res) => {
      const { id } = parseInput(memberIdParams, req.params);
      const member = await findMember(db, authOf(res).dataScope, id);
      if (!member) throw notFound('Üye bulunamadı.');
      res.set('ETag', memberETag(member));
      res.json({ success: true, data: member });
    },
  );

  return router;
}
