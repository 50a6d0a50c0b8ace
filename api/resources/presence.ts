import { z } from 'zod';
import { defineResource } from '../resource.js';

export const presenceResource = defineResource(
  'PresenceRecord',
  {
    id: z.int(),
    member_id: z.int(),
    member_name: z.string(),
    branch_id: z.int(),
    entry_time: z.iso.datetime(),
    exit_time: z.iso.datetime().nullable(),
    direction: z.string().meta({ description: 'Giriş (still inside) or Çıkış (has left).' }),
    access_method: z.string().meta({ description: 'One of: QR, Kart, Parmak İzi, Manuel.' }),
  },
  {
    id: 90411,
    member_id: 1042,
    member_name: 'Ayşe Yılmaz',
    branch_id: 3,
    entry_time: '2026-03-14T15:02:00.000Z',
    exit_time: null,
    direction: 'Giriş',
    access_method: 'QR',
  },
);
