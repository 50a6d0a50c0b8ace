import { z } from 'zod';
import { NOTIFICATION_TYPES, notificationResource } from '#api/resources/notifications.js';
import { defineEndpoint } from '../../endpoint-services.js';
import { booleanFilter, optionalId } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';

export const listNotificationsEndpoint = defineEndpoint({
  operationId: 'listNotifications',
  group: 'notifications',
  method: 'GET',
  path: '/notifications',
  summary: 'Bildirimleri listeler',
  description:
    "Newest first (created_at, then id, descending). A bound client sees its branch's notifications " +
    "and those addressed to every branch (branch_id null); `branch_id` narrows to one branch's own.",
  access: 'notifications:read',
  query: paginationQuery.extend({
    branch_id: optionalId,
    is_read: booleanFilter,
    type: z.enum(NOTIFICATION_TYPES).optional(),
  }),
  response: listResponse(notificationResource.schema, 'NotificationListResponse'),
  tables: ['notifications'],
  handle: ({ read, query }) => {
    const where = { branch_id: query.branch_id, is_read: query.is_read, type: query.type };
    return listPage(query, {
      rows: (window) =>
        read().notification.findMany({
          where,
          orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
          select: notificationResource.select,
          ...window,
        }),
      total: () => read().notification.count({ where }),
      toApi: notificationResource.toApi,
    });
  },
});
