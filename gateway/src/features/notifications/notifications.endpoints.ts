import { z } from 'zod';
import { defineEndpoint } from '../../http/endpoint.js';
import { booleanFilter, optionalId } from '../../http/filters.js';
import { listPage, listResponse, paginationQuery } from '../../http/pagination.js';
import { defineResource } from '../../http/resource.js';

export const NOTIFICATION_TYPES = ['Bilgi', 'Uyarı', 'Ödeme', 'Sistem'] as const;

export const notificationResource = defineResource(
  'Notification',
  {
    id: z.int(),
    branch_id: z.int().nullable().meta({ description: 'null: addressed to every branch.' }),
    title: z.string(),
    message: z.string(),
    type: z.string().meta({ description: `One of: ${NOTIFICATION_TYPES.join(', ')}.` }),
    is_read: z.boolean(),
    created_at: z.iso.datetime(),
  },
  {
    id: 77,
    branch_id: null,
    title: 'Bayram tatili',
    message: 'Tüm şubeler 1 Nisan günü 10:00-18:00 arası açıktır.',
    type: 'Bilgi',
    is_read: false,
    created_at: '2026-03-20T07:00:00.000Z',
  },
);

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
