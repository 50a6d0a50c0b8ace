import { z } from 'zod';
import { defineResource } from '../resource.js';

export const packageResource = defineResource(
  'Package',
  {
    id: z.int(),
    name: z.string(),
    price: z.number(),
    duration_days: z.int().nullable(),
    duration_months: z.int().nullable(),
    is_active: z.boolean(),
    sort_order: z.int(),
  },
  {
    id: 7,
    name: '3 Aylık Fitness',
    price: 4500,
    duration_days: null,
    duration_months: 3,
    is_active: true,
    sort_order: 2,
  },
);
