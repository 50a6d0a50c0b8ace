import { z } from 'zod';
import { personal } from '../data-classes.js';
import { defineResource } from '../resource.js';

// password_hash and remember_token never reach the read model, let alone this shape.
export const staffResource = defineResource(
  'Staff',
  {
    id: z.int(),
    full_name: personal('staff', z.string()),
    username: personal('staff', z.string()),
    email: personal('staff', z.string()),
    phone: personal('staff', z.string()),
    branch_id: z.int(),
    branch_name: z.string(),
    role_name: z.string(),
    is_active: z.boolean(),
    created_at: z.iso.datetime(),
    last_login: personal('staff', z.iso.datetime().nullable()),
  },
  {
    id: 12,
    full_name: 'Zeynep Kaya',
    username: 'zkaya',
    email: 'zeynep.kaya@example.com',
    phone: '5339876543',
    branch_id: 3,
    branch_name: 'Kadıköy',
    role_name: 'Resepsiyon',
    is_active: true,
    created_at: '2024-02-01T06:00:00.000Z',
    last_login: '2026-03-14T05:55:00.000Z',
  },
);
