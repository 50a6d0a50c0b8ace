import { z } from 'zod';
import { defineEndpoint } from '../../http/endpoint.js';
import { optionalId } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';
import { defineResource } from '../../http/resource.js';

export const privateLessonResource = defineResource(
  'PrivateLesson',
  {
    id: z.int(),
    member_id: z.int(),
    member_name: z.string(),
    branch_id: z.int().meta({ description: "The branch of the lesson's member." }),
    package_id: z.int(),
    package_name: z.string(),
    total_lessons: z.int(),
    remaining_lessons: z.int(),
    created_at: z.iso.datetime(),
  },
  {
    id: 58,
    member_id: 1042,
    member_name: 'Ayşe Yılmaz',
    branch_id: 3,
    package_id: 21,
    package_name: '10 Ders Pilates',
    total_lessons: 10,
    remaining_lessons: 6,
    created_at: '2026-02-02T10:00:00.000Z',
  },
);

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
