import { z } from 'zod';
import { defineResource } from '../resource.js';

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
