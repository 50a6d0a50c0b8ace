import { z } from 'zod';
import { presenceResource } from '#api/resources/presence.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { checkDateRange, dayFilter, instantRange, optionalId } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';

export const DIRECTIONS = ['Giriş', 'Çıkış'] as const;

export const listPresenceEndpoint = defineEndpoint({
  operationId: 'listPresence',
  group: 'presence',
  method: 'GET',
  path: '/presence',
  summary: 'Turnike giriş/çıkış kayıtlarını listeler',
  description:
    'Newest first (entry_time, then id, descending). Dates are Istanbul days of entry_time, inclusive.',
  access: 'presence:read',
  query: paginationQuery
    .extend({
      branch_id: optionalId,
      member_id: optionalId,
      start_date: dayFilter,
      end_date: dayFilter,
      direction: z.enum(DIRECTIONS).optional(),
    })
    .superRefine(checkDateRange),
  response: listResponse(presenceResource.schema, 'PresenceRecordListResponse'),
  tables: ['presence_records', 'members'],
  handle: ({ read, query }) => {
    const where = {
      branch_id: query.branch_id,
      member_id: query.member_id,
      direction: query.direction,
      entry_time: instantRange(query.start_date, query.end_date),
    };
    return listPage(query, {
      rows: (window) =>
        read().presenceRecord.findMany({
          where,
          orderBy: [{ entry_time: 'desc' }, { id: 'desc' }],
          select: presenceResource.select,
          ...window,
        }),
      total: () => read().presenceRecord.count({ where }),
      toApi: presenceResource.toApi,
    });
  },
});
