import { privateLessonResource } from '#api/resources/private-lessons.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { optionalId } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';

export const listPrivateLessonsEndpoint = defineEndpoint({
  operationId: 'listPrivateLessons',
  group: 'private_lessons',
  method: 'GET',
  path: '/private-lessons',
  summary: 'Özel dersleri listeler',
  description: 'Sorted by id ascending. A private lesson belongs to the branch of its member.',
  access: 'private_lessons:read',
  query: paginationQuery.extend({ member_id: optionalId, branch_id: optionalId }),
  response: listResponse(privateLessonResource.schema, 'PrivateLessonListResponse'),
  tables: ['private_lessons', 'members', 'packages'],
  handle: ({ read, query }) => {
    const where = { member_id: query.member_id, branch_id: query.branch_id };
    return listPage(query, {
      rows: (window) =>
        read().privateLesson.findMany({
          where,
          orderBy: { id: 'asc' },
          select: privateLessonResource.select,
          ...window,
        }),
      total: () => read().privateLesson.count({ where }),
      toApi: privateLessonResource.toApi,
    });
  },
});
